// `pnpm hallmark dlq list [--consumer name] [--json]` and `pnpm hallmark dlq replay <seq>`:
// the dead-letter stream HALLMARK_DLQ, where consumers park events they gave up on
// (packages/kit/src/dlq.ts). A module of its own so any CLI can call `runDlq`.
import { connectBus, listParked, replayParked } from '@hallmark/kit';
import { parseArgs } from 'node:util';

export const DLQ_USAGE =
  'pnpm hallmark dlq list [--consumer name] [--json] | dlq replay <seq>   (NATS_URL, default nats://127.0.0.1:4222)';

/** Runs one dlq command; returns the exit code. */
export async function runDlq(
  args: string[],
  io: { natsUrl?: string; out?: (line: string) => void; err?: (line: string) => void } = {},
): Promise<number> {
  const out = io.out ?? ((l) => console.log(l));
  const err = io.err ?? ((l) => console.error(l));
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { consumer: { type: 'string' }, json: { type: 'boolean' } },
  });
  const [action, seqArg] = positionals;
  if (action !== 'list' && !(action === 'replay' && /^\d+$/.test(seqArg ?? ''))) {
    err(`usage: ${DLQ_USAGE}`);
    return 2;
  }
  // Reads and replays parked messages; never creates or changes a stream.
  const bus = await connectBus(
    io.natsUrl ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    'hallmark-dlq',
    {
      streams: 'none',
    },
  );
  const nc = bus.nc;
  try {
    if (action === 'list') {
      const parked = (await listParked(nc)).filter((p) => !values.consumer || p.consumer === values.consumer);
      for (const p of parked) {
        const row = {
          seq: p.seq,
          parked_at: p.parkedAt,
          consumer: p.consumer,
          subject: p.subject,
          stream_seq: p.streamSeq,
          deliveries: p.deliveries,
          event_id: p.eventId ?? null,
          event_type: p.eventType ?? null,
          error: p.error,
        };
        out(
          values.json
            ? JSON.stringify(row)
            : `${p.seq}\t${p.parkedAt}\t${p.consumer}\t${p.subject}\tdeliveries=${p.deliveries}\t${p.eventId ?? '-'}\t${p.error}`,
        );
      }
      if (!values.json) err(`${parked.length} parked message(s)`);
      return 0;
    }
    try {
      const p = await replayParked(nc, Number(seqArg));
      out(`replayed ${p.seq}: ${p.eventId ?? '(undecodable)'} on ${p.subject} (was parked by ${p.consumer})`);
      return 0;
    } catch (e) {
      err((e as Error).message);
      return 1;
    }
  } finally {
    await bus.close();
  }
}
