// `hallmark certificates get|verify <id>` and `hallmark cost <count>`. Verification calls the
// open verification API (`GET /api/certificate/verify/{id}`, no credential needed) and prints
// its checks: the same presented verification the public page shows.
import { Command } from 'commander';
import { Ctx, details } from '../context.js';

export function certificatesCommand(): Command {
  const certs = new Command('certificates').description(
    'Certificates: public record and on-chain verification',
  );

  certs
    .command('get')
    .description("A certificate's public record (no authentication needed)")
    .argument('<certificateId>')
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const c = await ctx.client().get('/api/certificate/public/{id}', { params: { path: { id } } });
      ctx.print(c, () => details(c as never));
    });

  certs
    .command('verify')
    .description('Run the verification checks and print each with pass/fail (exit 1 unless all pass)')
    .argument('<certificateId>')
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const v = await ctx.client().get('/api/certificate/verify/{id}', { params: { path: { id } } });
      const { verified, checks } = v;
      ctx.print(v, () => {
        for (const c of checks)
          console.log(`${c.passed ? '✓ pass' : '✗ fail'}  ${c.name.padEnd(14)} ${c.detail}`);
        if (v.burned) console.log(`${id}: burned; its token no longer exists.`);
        console.log(verified ? `${id}: genuine, every check passed.` : `${id}: NOT verified.`);
      });
      if (!verified) process.exitCode = 1;
    });

  return certs;
}

export function costCommand(): Command {
  return new Command('cost')
    .description('Preview the price of minting <count> certificates')
    .argument('<count>', 'number of certificates', (v) => Number.parseInt(v, 10))
    .action(async (count: number, _o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().get('/api/billing/cost-preview/{count}', { params: { path: { count } } });
      ctx.print(r, () => details(r.data as never));
    });
}
