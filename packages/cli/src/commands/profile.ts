// `hallmark profile show|set|check`: the enterprise's issuer profile, which the public verify,
// voucher and claim pages name the issuer by. Without one they say "Issuer not verified";
// with one whose domain proof fails they say "Issuer not verified — Claimed by <name>".
import { HallmarkError } from '@hallmark/client';
import { Command } from 'commander';
import { Ctx } from '../context.js';

const SET_HINT =
  'hallmark profile set --name "<brand>" --website https://<brand site> [--logo https://<logo>]';

interface Profile {
  enterpriseId: string;
  displayName: string;
  website: string;
  logoUrl: string | null;
  logo: { url: string } | null;
  indexable: boolean;
  domain: { host: string; status: string; detail: string | null };
}

/** The profile in a few lines, and what the verify pages show because of it. */
function showProfile(p: Profile): void {
  console.log(`Issuer      ${p.displayName} (${p.enterpriseId})`);
  console.log(`Website     ${p.website}`);
  console.log(`Logo        ${p.logo ? `${p.logo.url} (from ${p.logoUrl})` : 'none'}`);
  if (p.domain.status === 'verified') {
    console.log(`Domain      ${p.domain.host}: verified`);
    console.log(`Pages say   "Issued by ${p.displayName}" ✓ domain verified`);
    return;
  }
  console.log(`Domain      ${p.domain.host}: not verified${p.domain.detail ? ` (${p.domain.detail})` : ''}`);
  console.log(`Pages say   "Issuer not verified — Claimed by ${p.displayName}"`);
  console.log(
    `To verify   serve https://${p.domain.host}/.well-known/hallmark-issuer.json as ` +
      `{"enterpriseId":"${p.enterpriseId}"}, then: hallmark profile check`,
  );
}

export function profileCommand(): Command {
  const profile = new Command('profile').description(
    'The issuer profile the verify pages name you by (owners and admins; admin.* for a key)',
  );

  profile
    .command('show')
    .description('The issuer profile and its domain proof')
    .action(async (_o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      try {
        const p = await ctx.client().get('/api/v1/enterprise/profile');
        ctx.print(p, () => showProfile(p as Profile));
      } catch (err) {
        if (ctx.json || !(err instanceof HallmarkError && err.code === 'resource_not_found')) throw err;
        // None yet: what the pages show because of it, and the one command that fixes it.
        console.error(`No issuer profile: verify pages say "Issuer not verified".\nSet one: ${SET_HINT}`);
        process.exitCode = 4;
      }
    });

  profile
    .command('set')
    .description(
      'Set the issuer profile (checks the domain proof; the logo is fetched once and served by Hallmark)',
    )
    .requiredOption('--name <name>', 'the brand as the pages show it')
    .requiredOption('--website <url>', 'https URL of the brand site (its domain is the proof)')
    .option('--logo <url>', 'https URL of the logo (PNG, JPEG, WebP or GIF)')
    .option('--indexable', 'let search engines index the verify pages')
    .action(
      async (o: { name: string; website: string; logo?: string; indexable?: boolean }, cmd: Command) => {
        const ctx = Ctx.of(cmd);
        const res = await ctx.client().api.PUT('/api/v1/enterprise/profile', {
          body: {
            displayName: o.name,
            website: o.website,
            ...(o.logo ? { logoUrl: o.logo } : {}),
            indexable: o.indexable === true,
          },
        });
        ctx.print(res.data, () => showProfile(res.data as Profile));
      },
    );

  profile
    .command('check')
    .description('Check the domain proof again (after publishing /.well-known/hallmark-issuer.json)')
    .action(async (_o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const p = await ctx.client().post('/api/v1/enterprise/profile/domain-check');
      ctx.print(p, () => showProfile(p as Profile));
    });

  return profile;
}
