import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { call, client, type Session } from '../api/client';
import type { EventType } from '../api/types';
import { Catalog } from '../catalog/Catalog';
import { EndpointsPage } from '../endpoints/EndpointsPage';
import { FiguresPage } from '../figures/EndpointFigures';
import { ReplaysPage } from '../replays/ReplaysPage';
import { SearchPage } from '../search/SearchPage';
import { Verify } from '../verify/Verify';
import { logoShown, useBrandColours } from './brand';
import type { ShownCommunity } from './page-state';
import { endpointsView, href, paths, sectionOf, type Section } from './routes';

const TABS: [Section, string][] = [
  ['endpoints', 'Endpoints'],
  ['replays', 'Replays'],
  ['search', 'Find by resource'],
  ['catalog', 'Event catalog'],
  ['verify', 'Verify signatures'],
];

function Tabs() {
  const { path } = useLocation();
  const current = sectionOf(path);
  return (
    <nav class="row tabs" aria-label="Sections">
      {TABS.map(([section, label]) => (
        <a
          key={section}
          class="button"
          href={href(paths[section])}
          aria-current={current === section ? 'page' : undefined}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}

/** What every page of a signed-in portal reads: the session, the community and the event catalog. */
const PortalContext = createContext<{ session: Session; communityId: string; catalog: EventType[] } | null>(
  null,
);

function usePortal() {
  return useContext(PortalContext)!;
}

// One component per route, defined once: a route's component made anew on each render would remount its page
// (and lose an open form) whenever the portal re-renders.
function EndpointsRoute() {
  const { session, communityId, catalog } = usePortal();
  const view = endpointsView(useLocation().path) ?? { figuresOf: null, logOf: null };
  if (view.figuresOf)
    return <FiguresPage session={session} communityId={communityId} webhookId={view.figuresOf} />;
  return <EndpointsPage session={session} communityId={communityId} catalog={catalog} logOf={view.logOf} />;
}
function ReplaysRoute() {
  const { session, communityId } = usePortal();
  return <ReplaysPage session={session} communityId={communityId} />;
}
function SearchRoute() {
  const { session, communityId } = usePortal();
  return <SearchPage session={session} communityId={communityId} />;
}
function CatalogRoute() {
  return <Catalog catalog={usePortal().catalog} />;
}

/** The signed-in portal: the community's header, its sections, and the page the address names. */
export function Portal({
  session,
  community,
  pin,
  onSignOut,
}: {
  session: Session;
  community: ShownCommunity;
  pin: string | null;
  onSignOut: () => void;
}) {
  useBrandColours(community.branding?.primaryColor);
  const logo = logoShown(community.branding, pin);
  const [catalog, setCatalog] = useState<EventType[]>([]);
  useEffect(() => {
    call(session, (headers) => client.GET('/api/webhooks/event-types', { headers })).then(
      (c) => setCatalog(c.items),
      () => setCatalog([]),
    );
  }, [session]);
  const shared = useMemo(
    () => ({ session, communityId: community.id, catalog }),
    [session, community.id, catalog],
  );
  return (
    <PortalContext.Provider value={shared}>
      <LocationProvider scope={paths.home}>
        <header class="row spread portal-header">
          <div class="row">
            {logo && <img class="logo" src={logo} alt="" data-testid="logo" />}
            <h1>Webhooks · {community.name}</h1>
          </div>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <Tabs />
        <main>
          <Router>
            <Route path={paths.replays} component={ReplaysRoute} />
            <Route path={paths.search} component={SearchRoute} />
            <Route path={paths.catalog} component={CatalogRoute} />
            <Route path={paths.verify} component={Verify} />
            <Route default component={EndpointsRoute} />
          </Router>
        </main>
      </LocationProvider>
    </PortalContext.Provider>
  );
}
