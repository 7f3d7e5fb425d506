/**
 * The colours the portal derives from a community's brand colour (docs/product-decisions.md#10-webhook-portal-embedding),
 * every pair at least WCAG AA's 4.5:1 for normal text, whatever colour the community chose.
 */
export const MIN_CONTRAST = 4.5;

const WHITE = '#ffffff';
const BLACK = '#000000';

/** `#RRGGBB` (the only form the branding route accepts) as 0–255 channels, or null. */
function channels(hex: string): [number, number, number] | null {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return match ? [parseInt(match[1], 16), parseInt(match[2], 16), parseInt(match[3], 16)] : null;
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2 relative luminance of a `#RRGGBB` colour (0 black … 1 white). */
export function relativeLuminance(hex: string): number {
  const rgb = channels(hex);
  if (!rgb) throw new Error(`not a #RRGGBB colour: ${hex}`);
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Black or white, whichever reads better on `background`: one of them always reaches 4.5:1 (the worst
 * background, of luminance about 0.18, still gives 4.58:1 with both).
 */
export function textOn(background: string): string {
  return contrastRatio(background, WHITE) >= contrastRatio(background, BLACK) ? WHITE : BLACK;
}

/**
 * `colour` darkened (towards black, keeping its hue) just enough to reach 4.5:1 against `background`
 * (white or a light colour): a light brand colour (a yellow) as text or a border on the page's white.
 */
export function darkenFor(colour: string, background: string): string {
  const rgb = channels(colour);
  if (!rgb) throw new Error(`not a #RRGGBB colour: ${colour}`);
  if (contrastRatio(colour, background) >= MIN_CONTRAST) return toHex(rgb);
  // contrast grows as the factor shrinks: the largest factor (on a 1/255 grid) that reaches the minimum
  let low = 0;
  let high = 1;
  for (let i = 0; i < 16; i++) {
    const mid = (low + high) / 2;
    if (contrastRatio(toHex(rgb.map((c) => c * mid) as [number, number, number]), background) >= MIN_CONTRAST)
      low = mid;
    else high = mid;
  }
  return toHex(rgb.map((c) => Math.floor(c * low)) as [number, number, number]);
}

/** The portal's brand colours: `fill` behind `onFill` text (buttons, the header), `ink` as text on white. */
export interface BrandPalette {
  fill: string;
  onFill: string;
  ink: string;
}

/** The palette for a community's primary colour; null (no colour, or not `#RRGGBB`) keeps the portal's own. */
export function brandPalette(primary: string | null | undefined): BrandPalette | null {
  if (!primary || !channels(primary)) return null;
  const fill = primary.toLowerCase();
  return { fill, onFill: textOn(fill), ink: darkenFor(fill, WHITE) };
}
