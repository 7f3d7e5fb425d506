import { formatBanner } from './banner';

describe('the start-up banner', () => {
  it("prints the webhook portal's address beside the API's", () => {
    const lines = formatBanner({
      apiBase: 'http://localhost:3000/api',
      state: null,
      statePath: '/tmp/demo.json',
      insecureTargets: 'off',
    });
    expect(lines.find((line) => line.includes('Portal'))).toMatch(
      /^ {2}Portal http:\/\/localhost:3000\/portal /,
    );
  });
});
