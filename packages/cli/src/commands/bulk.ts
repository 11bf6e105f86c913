// `hallmark bulk …`: CSV (+ images ZIP) jobs with an upload bar and a live job bar, the
// order form, watching, status, lists, retry, cancel, downloads and the CSV template.
// (`bulk fix` is added as its own file when the server can correct a row in place.)
import { createOrderJob, downloadResults, jobProgress, type Data, type OrderBody } from '@hallmark/client';
import { Command, Option } from 'commander';
import { createWriteStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Ctx, table } from '../context.js';
import { byteBar } from '../progress.js';
import { follow, jobElapsedMs, jobExitCode, summary } from './bulk-follow.js';

export function bulkCommand(): Command {
  const bulk = new Command('bulk').description('Bulk certificate jobs (CSV + images ZIP, or an order)');

  bulk
    .command('submit')
    .description('Upload a CSV (and a ZIP of its images) as a bulk mint job')
    .argument(
      '<file.csv>',
      'the CSV: name, description, category, recipientEmail, … (see `hallmark bulk template`)',
    )
    .option('--images <file.zip>', 'ZIP of the images the CSV names (imageFile column)')
    .option('--batch', 'mint the job as one batch (createBatch=true)')
    .option('--wait', 'follow the job with a live progress bar until it ends')
    .action(async (file: string, o: { images?: string; batch?: boolean; wait?: boolean }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const hm = ctx.client();
      let bar: ReturnType<typeof byteBar> | undefined;
      const created = await hm.createBulkJob({
        csv: file,
        ...(o.images ? { images: o.images } : {}),
        ...(o.batch ? { createBatch: true } : {}),
        onProgress: (p) => {
          if (ctx.json) return;
          bar ??= byteBar('Uploading', p.totalBytes);
          bar.update(p.sentBytes);
        },
      });
      bar?.stop();
      const job = created.data;
      if (!o.wait) {
        ctx.print(created, () => {
          console.log(`Job ${job.jobId} ${job.status}: ${job.totalCount} items.`);
          console.log(`Follow it with: hallmark bulk watch ${job.jobId}`);
        });
        return;
      }
      if (!ctx.json) console.error(`Job ${job.jobId} ${job.status}: ${job.totalCount} items.`);
      process.exitCode = jobExitCode(await follow(ctx, hm, job.jobId));
    });

  bulk
    .command('order')
    .description('Submit an order-form job (JSON: schemaVersion, metadata, externalContext)')
    .argument('<order.json>', 'the order body')
    .option(
      '--idempotency-key <key>',
      'reuse a key ({shop}#{orderId}#{lineItemGid}#{hash}); made up when absent',
    )
    .option('--wait', 'follow an asynchronous job until it ends')
    .action(async (file: string, o: { idempotencyKey?: string; wait?: boolean }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const hm = ctx.client();
      const body = JSON.parse(readFileSync(file, 'utf8')) as OrderBody;
      const created = (await createOrderJob(hm, body, o)) as Record<string, any>;
      if (o.wait && created.status !== 'completed') {
        process.exitCode = jobExitCode(await follow(ctx, hm, created.jobId as string));
        return;
      }
      ctx.print(created, () => {
        console.log(`Job ${created.jobId} ${created.status}.`);
        for (const v of (created.vouchers as { id: string; url: string }[] | undefined) ?? []) {
          console.log(`  ${v.id}  ${v.url}`);
        }
      });
    });

  bulk
    .command('watch')
    .description('Follow a job with a live progress bar until it ends (Ctrl-C detaches)')
    .argument('<jobId>')
    .action(async (jobId: string, _o: unknown, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      process.exitCode = jobExitCode(await follow(ctx, ctx.client(), jobId));
    });

  bulk
    .command('status')
    .description("Show a job's status and counts")
    .argument('<jobId>')
    .action(async (jobId: string, _o: unknown, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const { progress } = await jobProgress(ctx.client(), jobId);
      summary(ctx, progress, jobElapsedMs(progress.job));
    });

  bulk
    .command('list')
    .description('List jobs, newest first')
    .addOption(
      new Option('--status <status>').choices(['queued', 'processing', 'completed', 'failed', 'cancelled']),
    )
    .option('--page <n>', 'page number', (v) => Number(v), 1)
    .option('--limit <n>', 'jobs per page (max 100)', (v) => Number(v), 20)
    .action(
      async (
        o: {
          status?: Data<'get', '/api/bulk-mint'>['data']['jobs'][number]['status'];
          page: number;
          limit: number;
        },
        cmd: Command,
      ) => {
        const ctx = Ctx.of(cmd);
        const r = await ctx.client().get('/api/bulk-mint', {
          params: {
            query: { page: o.page, limit: o.limit, ...(o.status ? { status: o.status as never } : {}) },
          },
        });
        ctx.print(r, () => {
          table(
            ['job', 'status', 'total', 'processed', 'ok', 'failed', 'created'],
            r.data.jobs.map((j) => [
              j.jobId,
              j.status,
              j.totalCount,
              j.processedCount,
              j.successCount,
              j.failedCount,
              j.createdAt,
            ]),
          );
          const p = r.data.pagination;
          console.log(`page ${p.page} of ${p.totalPages} (${p.totalItems} jobs)`);
        });
      },
    );

  bulk
    .command('retry')
    .description('Reprocess the failed items of a job')
    .argument('<jobId>')
    .option('--wait', 'follow the job until it ends')
    .action(async (jobId: string, o: { wait?: boolean }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const hm = ctx.client();
      const r = await hm.post('/api/bulk-mint/{jobId}/retry', { params: { path: { jobId } } });
      if (o.wait) {
        if (!ctx.json) console.error(`Retrying ${r.data.retriedCount} items of ${jobId}.`);
        process.exitCode = jobExitCode(await follow(ctx, hm, jobId));
        return;
      }
      ctx.print(r, () => console.log(`Job ${jobId} ${r.data.status}: ${r.data.retriedCount} items retried.`));
    });

  bulk
    .command('fix')
    .description('Correct a failed row of a CSV job in place (then `bulk retry` mints it in the same job)')
    .argument('<jobId>')
    .argument('<row>', 'the CSV row number', (v: string) => Number.parseInt(v, 10))
    .requiredOption(
      '--set <column=value...>',
      'a corrected cell by CSV column (repeatable; an empty value clears an optional cell)',
    )
    .option('--retry', 'retry the job right after the fix')
    .action(async (jobId: string, row: number, o: { set: string[]; retry?: boolean }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const fields: Record<string, string> = {};
      for (const pair of o.set) {
        const eq = pair.indexOf('=');
        if (eq < 1) throw new Error(`--set wants column=value, got "${pair}"`);
        fields[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const hm = ctx.client();
      const r = await hm.patch('/api/bulk-mint/{jobId}/items/{row}', {
        params: { path: { jobId, row } },
        body: fields,
      });
      ctx.print(r, () =>
        console.log(`Row ${r.data.row} of ${jobId} (${r.data.name}) fixed: ${r.data.status}.`),
      );
      if (o.retry) {
        const retried = await hm.post('/api/bulk-mint/{jobId}/retry', { params: { path: { jobId } } });
        ctx.print(retried, () =>
          console.log(`Job ${jobId} ${retried.data.status}: ${retried.data.retriedCount} items retried.`),
        );
      }
    });

  bulk
    .command('cancel')
    .description('Cancel a queued or processing job (finished certificates stay)')
    .argument('<jobId>')
    .action(async (jobId: string, _o: unknown, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().post('/api/bulk-mint/{jobId}/cancel', { params: { path: { jobId } } });
      ctx.print(r, () =>
        console.log(
          `Job ${jobId} ${r.data.status}: ${r.data.processedCount} of ${r.data.totalCount} processed.`,
        ),
      );
    });

  bulk
    .command('download')
    .description(
      "Download a job's results: --csv (rows, certificates, vouchers) or --zip (images and metadata)",
    )
    .argument('<jobId>')
    .option('--csv', 'the results CSV (default)')
    .option('--zip', 'the ZIP of images and metadata files')
    .option('-o, --output <file>', 'where to write (default: the server’s file name; - for stdout)')
    .action(async (jobId: string, o: { csv?: boolean; zip?: boolean; output?: string }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const type = o.zip ? 'zip' : 'csv';
      const file = await downloadResults(ctx.client(), jobId, type);
      const target = o.output ?? file.filename ?? `${jobId}.${type}`;
      const bar = target === '-' || ctx.json ? undefined : byteBar('Downloading', file.totalBytes);
      let got = 0;
      const counted = Readable.fromWeb(file.body as never).on('data', (c: Buffer) =>
        bar?.update((got += c.length)),
      );
      await pipeline(counted, target === '-' ? process.stdout : createWriteStream(target));
      bar?.stop();
      if (target !== '-') {
        ctx.print({ jobId, type, file: target, bytes: got }, () =>
          console.log(`Wrote ${target} (${got} bytes).`),
        );
      }
    });

  bulk
    .command('template')
    .description('Print (or save) the CSV template with every column')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action(async (o: { output?: string }, cmd: Command) => {
      const res = await Ctx.of(cmd).client().fetch('/api/bulk-mint/template/csv');
      const text = await res.text();
      if (o.output) {
        await pipeline(Readable.from([text]), createWriteStream(o.output));
        console.error(`Wrote ${o.output}.`);
      } else process.stdout.write(text);
    });

  return bulk;
}
