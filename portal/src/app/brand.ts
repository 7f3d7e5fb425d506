import { useEffect } from 'preact/hooks';
import type { Branding } from '../api/types';
import { brandPalette } from '../shared/contrast';

/** The brand colour as CSS custom properties on the page (styles.css reads them), for as long as it shows. */
export function useBrandColours(primary: string | null | undefined) {
  useEffect(() => {
    const palette = brandPalette(primary);
    if (!palette) return;
    // CSSOM, not a style attribute: the page's policy (style-src 'self') allows it
    const root = document.documentElement.style;
    const properties = { '--brand': palette.fill, '--on-brand': palette.onFill, '--brand-ink': palette.ink };
    for (const [name, value] of Object.entries(properties)) root.setProperty(name, value);
    return () => Object.keys(properties).forEach((name) => root.removeProperty(name));
  }, [primary]);
}

/**
 * The logo, when the page's policy lets it load: an https URL (an http one would be mixed content), and the
 * page's URL naming the community, whose logo's origin the server then adds to img-src.
 */
export function logoShown(branding: Branding | undefined, pin: string | null): string | null {
  if (!pin || !branding?.logoUrl) return null;
  try {
    return new URL(branding.logoUrl).protocol === 'https:' ? branding.logoUrl : null;
  } catch {
    return null;
  }
}
