// `hallmark verify <bundle.json> --rpc <url> [--image <file>]`: checks a certificate's proof
// bundle with @hallmark/verify against the chain alone (no Hallmark server, no credentials) and
// prints each check. Exit 0 only when the certificate is verified (valid).
import { verifyBundle, type VerificationReport } from '@hallmark/verify';
import { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { Ctx } from '../context.js';

const HEADLINES: Record<VerificationReport['status'], string> = {
  valid: 'VERIFIED: a genuine certificate, currently valid.',
  revoked: 'REVOKED: the certificate was genuine but is revoked or its token burned.',
  invalid: 'NOT VERIFIED: a check failed.',
  unknown: 'NOT VERIFIED: a required check could not be made (is the RPC URL right?).',
};

export function printReport(report: VerificationReport): void {
  const c = report.certificate;
  if (c) {
    console.log(`Certificate  ${c.id}: ${c.name}`);
    console.log(`Issuer       ${c.issuer}`);
    console.log(
      `Token        ${c.tokenId} of ${c.contract} on chain ${c.chainId}${c.owner ? `, held by ${c.owner}` : ''}`,
    );
    console.log('');
  }
  const width = Math.max(...report.checks.map((k) => k.name.length));
  for (const k of report.checks) console.log(`${k.result.padEnd(8)} ${k.name.padEnd(width)}  ${k.detail}`);
  if (report.notes.length) {
    console.log('\nNotes:');
    for (const n of report.notes) console.log(`- ${n}`);
  }
  console.log(`\n${HEADLINES[report.status]}`);
}

export function verifyCommand(): Command {
  return new Command('verify')
    .description(
      "Verify a certificate's proof bundle (hallmark-proof-<id>.json) against the chain alone: no Hallmark server needed (exit 0 only when verified)",
    )
    .argument('<bundle>', 'the proof bundle JSON file')
    .requiredOption('--rpc <url>', 'JSON-RPC URL of the chain the certificate was minted on')
    .option('--image <file>', "the certificate's image, checked against its certified sha256")
    .action(async (file: string, opts: { rpc: string; image?: string }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new Error(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      });
      const image = opts.image
        ? new Uint8Array(
            await readFile(opts.image).catch((err: NodeJS.ErrnoException) => {
              throw new Error(
                `cannot read ${opts.image}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`,
              );
            }),
          )
        : undefined;
      const report = await verifyBundle(text, { rpcUrl: opts.rpc, ...(image ? { image } : {}) });
      ctx.print(report, () => printReport(report));
      process.exitCode = report.verified ? 0 : 1;
    });
}
