// `hallmark certificates get|verify <id>` and `hallmark cost <count>`. Verification reads the
// public verification page (/verify/:id) and prints its checks: the page is where the five
// on-chain checks are published (it marks each with data-check / data-passed).
import { Command } from 'commander';
import { Ctx, details } from '../context.js';

export interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();

export function checksOf(html: string): Check[] {
  const re = /<li[^>]*data-check="([^"]+)"[^>]*data-passed="(true|false)"[^>]*>([\s\S]*?)<\/li>/g;
  return [...html.matchAll(re)].map((m) => ({
    name: m[1]!,
    passed: m[2] === 'true',
    detail: text(/class="why">([\s\S]*?)<\/span>/.exec(m[3]!)?.[1] ?? ''),
  }));
}

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
      const res = await ctx
        .client()
        .fetch(`/verify/${encodeURIComponent(id)}`, { headers: { accept: 'text/html' } });
      const checks = checksOf(await res.text());
      const verified = checks.length > 0 && checks.every((c) => c.passed);
      ctx.print({ id, verified, checks }, () => {
        for (const c of checks)
          console.log(`${c.passed ? '✓ pass' : '✗ fail'}  ${c.name.padEnd(14)} ${c.detail}`);
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
