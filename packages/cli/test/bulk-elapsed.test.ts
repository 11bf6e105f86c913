// `bulk watch` and `bulk status` report a job's own time from the server's records: a retry
// that took 38 s was reported "completed in 0.1 s" because the watch began when it ended.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { JobProgress } from '@hallmark/client';
import { jobElapsedMs, summary } from '../src/commands/bulk-follow.js';
import { Ctx } from '../src/context.js';

afterEach(() => {
  jest.restoreAllMocks();
});

const progress = (job: Record<string, unknown>): JobProgress =>
  ({
    jobId: 'job_R',
    status: 'completed',
    total: 3,
    processed: 3,
    succeeded: 3,
    failed: 0,
    done: true,
    job,
    answer: { success: true, data: job },
  }) as unknown as JobProgress;

describe('a finished job’s time', () => {
  it('runs from its last retry’s start to its completion, however late the watch began', () => {
    const job = {
      createdAt: '2026-01-01T10:00:00.000Z',
      retriedAt: '2026-01-01T10:05:00.000Z',
      completedAt: '2026-01-01T10:05:38.000Z',
    };
    expect(jobElapsedMs(job)).toBe(38_000);
    const out: string[] = [];
    jest.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    summary(new Ctx({}), progress(job), jobElapsedMs(job));
    expect(out[0]).toBe('Job job_R completed in 38.0 s: 3 items, 3 succeeded, 0 failed.');
  });

  it('runs from its creation when never retried, and is unknown until it completes', () => {
    expect(jobElapsedMs({ createdAt: '2026-01-01T10:00:00Z', completedAt: '2026-01-01T10:00:11.2Z' })).toBe(
      11_200,
    );
    expect(jobElapsedMs({ createdAt: '2026-01-01T10:00:00Z', completedAt: null })).toBeUndefined();
  });
});
