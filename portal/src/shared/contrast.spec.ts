import { brandPalette, contrastRatio, darkenFor, MIN_CONTRAST, relativeLuminance, textOn } from './contrast';

describe('the portal brand colours', () => {
  it('computes WCAG relative luminance and contrast', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#FFFFFF')).toBe(1);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    // the portal's own pair, stated in styles.css
    expect(contrastRatio('#0b4f9c', '#ffffff')).toBeCloseTo(8.04, 2);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(() => relativeLuminance('red')).toThrow();
  });

  it('puts white text on a dark colour and black text on a light one', () => {
    expect(textOn('#0b4f9c')).toBe('#ffffff');
    expect(textOn('#1a2b3c')).toBe('#ffffff');
    expect(textOn('#ffcc00')).toBe('#000000');
    expect(textOn('#ffffff')).toBe('#000000');
  });

  it('reaches 4.5:1 for the text on every fill, the worst mid-grey included', () => {
    for (let v = 0; v < 256; v += 5) {
      for (const fill of [
        `#${v.toString(16).padStart(2, '0').repeat(3)}`,
        `#ff${v.toString(16).padStart(2, '0')}00`,
      ]) {
        expect(contrastRatio(fill, textOn(fill))).toBeGreaterThanOrEqual(MIN_CONTRAST);
      }
    }
  });

  it('darkens a light colour just enough to read on white, and leaves a dark one alone', () => {
    expect(darkenFor('#0b4f9c', '#ffffff')).toBe('#0b4f9c');
    const yellow = darkenFor('#ffcc00', '#ffffff');
    expect(contrastRatio(yellow, '#ffffff')).toBeGreaterThanOrEqual(MIN_CONTRAST);
    // just enough (barely above the minimum), and still the same hue (red and green in the same proportion)
    expect(contrastRatio(yellow, '#ffffff')).toBeLessThan(MIN_CONTRAST + 0.1);
    const [r, g] = [parseInt(yellow.slice(1, 3), 16), parseInt(yellow.slice(3, 5), 16)];
    expect(r / 255).toBeCloseTo(g / 0xcc, 1);
    expect(contrastRatio('#ffcc00', '#ffffff')).toBeLessThan(MIN_CONTRAST);
    expect(contrastRatio(darkenFor('#ffffff', '#ffffff'), '#ffffff')).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  it('derives the palette from the primary colour, or none', () => {
    expect(brandPalette('#FFCC00')).toEqual({
      fill: '#ffcc00',
      onFill: '#000000',
      ink: darkenFor('#ffcc00', '#ffffff'),
    });
    expect(brandPalette('#1A2B3C')).toEqual({ fill: '#1a2b3c', onFill: '#ffffff', ink: '#1a2b3c' });
    expect(brandPalette(null)).toBeNull();
    expect(brandPalette('not a colour')).toBeNull();
  });
});
