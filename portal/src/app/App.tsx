import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorText, type Session } from '../api/client';
import {
  exchangePortalLink,
  forgetPortalSession,
  restorePortalSession,
  signOut,
  storePortalSession,
  type StoredPortalSession,
} from '../api/portal-session';
import { Picker } from '../sign-in/Picker';
import { Refused } from '../sign-in/Refused';
import { SignIn } from '../sign-in/SignIn';
import {
  EXPIRED,
  initialState,
  isFramed,
  linkToken,
  matchesPin,
  MAX_TIMER_MS,
  OTHER_COMMUNITY,
  pinnedCommunity,
  portalSession,
  shownCommunity,
  type ShownCommunity,
} from './page-state';
import { Portal } from './Portal';

/**
 * The page: a portal link in the address bar is exchanged for its session, a kept one restored, else the
 * sign-in; then the community picker (a password sign-in) and the portal itself. The session ends at its
 * expiry, on a refusal for good, or with Sign out.
 */
export function App() {
  const [initial] = useState(initialState);
  const [pin] = useState(pinnedCommunity);
  const [framed] = useState(isFramed);
  const [refused, setRefused] = useState<string | null>(initial.refused);
  const [session, setSession] = useState<Session | null>(
    () => initial.stored && portalSession(initial.stored),
  );
  const [community, setCommunity] = useState<ShownCommunity | null>(
    () => initial.stored && shownCommunity(initial.stored),
  );
  const [linkError, setLinkError] = useState<string | null>(null);
  const [exchanging, setExchanging] = useState(() => linkToken() !== null && initial.refused === null);
  const [notice, setNotice] = useState<string | null>(initial.notice);
  useEffect(() => {
    const token = linkToken();
    if (!token) return;
    // the token leaves the address bar (and history) before anything else happens; the community stays
    history.replaceState(null, '', window.location.pathname + window.location.search);
    if (initial.refused) return;
    setExchanging(true);
    exchangePortalLink(token, pin)
      .then((portal) => {
        // the server refused a link of another community than the page is for, and left it unused
        if (portal === 'other-community') return setRefused(OTHER_COMMUNITY);
        const stored: StoredPortalSession = {
          token: portal.accessToken,
          expiresAt: Date.now() + portal.expiresIn * 1000,
          communityId: portal.communityId,
          communityName: portal.communityName,
          communitySlug: portal.communitySlug,
          branding: portal.branding,
        };
        // a second lock: a session of another community is ended, never shown here
        if (!matchesPin(pin, { id: portal.communityId, slug: portal.communitySlug })) {
          void signOut(portalSession(stored)).catch(() => undefined);
          setRefused(OTHER_COMMUNITY);
          return;
        }
        // a session this tab kept from an earlier link is replaced: end it rather than leave it usable
        const earlier = restorePortalSession().stored;
        if (earlier) void signOut(portalSession(earlier)).catch(() => undefined);
        storePortalSession(stored);
        start(portalSession(stored));
        setCommunity(shownCommunity(stored));
      })
      .catch((err) => setLinkError(errorText(err)))
      .finally(() => setExchanging(false));
  }, []);
  const leave = (message: string | null) => {
    forgetPortalSession();
    setSession(null);
    setCommunity(null);
    setNotice(message);
  };
  function start(next: Session) {
    setNotice(null);
    setSession(next);
  }
  // a session refused for good ends the page's session; a portal link's also ends when it expires, even
  // with no call to meet the refusal
  useEffect(() => {
    if (!session) return;
    session.onEnded = () => leave('Your session has ended. Sign in again to continue.');
    const { expiresAt } = session;
    if (expiresAt === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const left = expiresAt - Date.now();
      if (left <= 0) leave(EXPIRED);
      else timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
    };
    check();
    return () => clearTimeout(timer);
  }, [session]);
  const end = async () => {
    if (!session) return;
    // the server forgets the session first: a token copied from this page stops working everywhere; and
    // this tab forgets it before asking, so a reload meanwhile does not bring it back
    session.onEnded = undefined;
    forgetPortalSession();
    try {
      await signOut(session);
      leave('You are signed out.');
    } catch (err) {
      leave(
        err instanceof ApiError && err.status === 401
          ? 'You are signed out.'
          : `Signed out of this page, but the service could not confirm it: ${errorText(err)}`,
      );
    }
  };
  if (refused) return <Refused message={refused} />;
  if (exchanging) return <p aria-live="polite">Opening the portal…</p>;
  if (!session) return <SignIn onSession={start} linkError={linkError} notice={notice} framed={framed} />;
  if (!community) return <Picker session={session} pin={pin} onPick={setCommunity} onSignOut={end} />;
  return <Portal session={session} community={community} pin={pin} onSignOut={end} />;
}
