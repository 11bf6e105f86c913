// `hallmark profile`: the onboarding step that names the issuer on the verify pages. Without
// a profile `show` says what the pages show and how to set one (exit 4); `set` stores it,
// archives the logo and says what the pages now show. Run by e2e.test.ts on its stack.
import { beforeAll, expect, it } from '@jest/globals';
import type { TestStack } from '@hallmark/e2e';
import type { Receiver } from '../../client/test/receiver.js';
import { hallmark } from './run.js';

export function profileSuite(getEnv: () => { stack: TestStack; receiver: Receiver }) {
  let env: Record<string, string>;
  let receiver: Receiver;
  beforeAll(async () => {
    const got = getEnv();
    receiver = got.receiver;
    env = { HALLMARK_BASE_URL: got.stack.gatewayUrl, HALLMARK_TOKEN: await got.stack.token() };
  });

  it('without a profile says the pages show "Issuer not verified" and how to set one; set names the issuer', async () => {
    const none = await hallmark(['profile', 'show'], env);
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('verify pages say "Issuer not verified"');
    expect(none.stderr).toContain('hallmark profile set --name');

    const set = await hallmark(
      [
        'profile',
        'set',
        '--name',
        'Maison CLI',
        '--website',
        `${receiver.url}/`,
        '--logo',
        `${receiver.url}/logo.png`,
      ],
      env,
    );
    expect(set.code).toBe(0);
    // The receiver's site does not publish the proof: named, but as a claim.
    expect(set.stdout).toContain('Pages say   "Issuer not verified — Claimed by Maison CLI"');
    expect(set.stdout).toMatch(/Logo +http:\/\/127\.0\.0\.1:\d+\/media\/[0-9a-f]{64}/);

    const shown = await hallmark(['profile', 'show', '--json'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      displayName: 'Maison CLI',
      domain: { status: 'unverified' },
    });
  });
}
