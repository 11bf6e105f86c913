// Progress bars (cli-progress) on stderr, so stdout stays for results and `--json`. In a
// terminal they redraw in place; without one (CI logs, pipes) they print a line every 2 s.
import cliProgress from 'cli-progress';

const common = {
  stream: process.stderr,
  hideCursor: true,
  barCompleteChar: '█',
  barIncompleteChar: '░',
  barsize: 25,
  noTTYOutput: true,
  notTTYSchedule: 2000,
  etaBuffer: 20,
  fps: 10,
};

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A byte bar (uploads, downloads); `total` 0 when unknown. */
export function byteBar(label: string, total: number | undefined) {
  const bar = new cliProgress.SingleBar({
    ...common,
    format: total ? `${label} |{bar}| {percentage}% {done}/{size} {speed}/s` : `${label} {done} {speed}/s`,
  });
  const started = Date.now();
  bar.start(total ?? 0, 0, { done: bytes(0), size: bytes(total ?? 0), speed: bytes(0) });
  return {
    update(sent: number) {
      const sec = Math.max(0.001, (Date.now() - started) / 1000);
      bar.update(sent, { done: bytes(sent), speed: bytes(Math.round(sent / sec)) });
    },
    stop: () => bar.stop(),
  };
}

/** The live bar of a bulk job: processed of total, succeeded and failed, rate and ETA. */
export function jobBar(jobId: string) {
  const bar = new cliProgress.SingleBar({
    ...common,
    format: `${jobId} {status} |{bar}| {percentage}% {value}/{total} | ✓ {succeeded} ✗ {failed} | {rate}/s | ETA {eta_formatted}`,
  });
  let started: number | undefined;
  let startCount = 0;
  return {
    update(p: { status: string; total: number; processed: number; succeeded: number; failed: number }) {
      const payload = { status: p.status.padEnd(10), succeeded: p.succeeded, failed: p.failed, rate: '0.0' };
      if (started === undefined) {
        started = Date.now();
        startCount = p.processed;
        bar.start(Math.max(p.total, 1), p.processed, payload);
        return;
      }
      const sec = Math.max(0.001, (Date.now() - started) / 1000);
      payload.rate = ((p.processed - startCount) / sec).toFixed(1);
      bar.setTotal(Math.max(p.total, 1));
      bar.update(p.processed, payload);
    },
    stop: () => bar.stop(),
  };
}
