import { PORTAL_CSP, portalPageCsp } from './portal-static';

const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `));

describe("the portal page's policy", () => {
  it("is the fixed one, frame-ancestors 'none', without a community or with no origins", () => {
    expect(portalPageCsp(null)).toBe(PORTAL_CSP);
    expect(portalPageCsp({ portalAllowedOrigins: [], logoUrl: null })).toBe(PORTAL_CSP);
    expect(directive(PORTAL_CSP, 'frame-ancestors')).toBe("frame-ancestors 'none'");
  });

  it("lists exactly the community's origins and its https logo's origin, changing nothing else", () => {
    const csp = portalPageCsp({
      portalAllowedOrigins: ['https://app.example.com', 'https://admin.example.com:8443'],
      logoUrl: 'https://cdn.example.com/brand/logo.svg?v=2',
    });
    expect(directive(csp, 'frame-ancestors')).toBe(
      'frame-ancestors https://app.example.com https://admin.example.com:8443',
    );
    expect(directive(csp, 'img-src')).toBe("img-src 'self' data: https://cdn.example.com");
    const others = (policy: string) =>
      policy.split('; ').filter((d) => !/^(frame-ancestors|img-src) /.test(d));
    expect(others(csp)).toEqual(others(PORTAL_CSP));
  });

  it('drops a stored value that is not exactly an https origin, so none can add a directive', () => {
    const csp = portalPageCsp({
      portalAllowedOrigins: [
        "https://a.example.com; script-src 'unsafe-inline'",
        'http://b.example.com',
        '*',
      ],
      logoUrl: 'http://cdn.example.com/logo.png',
    });
    expect(csp).toBe(PORTAL_CSP);
  });
});
