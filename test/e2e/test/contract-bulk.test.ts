// The contract, exact (issue 13), bulk CSV form: a created job's counts start at 0 (row
// validation belongs to the job), its 202 says where to poll, and a retry reprocesses every
// failed item — rows that failed validation included, which fail again with the same error.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { csvForm, png, waitForJob, zipOf } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let auth: string;

beforeAll(async () => {
  stack = await startTestStack({ anvil: true, restate: true });
  auth = await stack.token();
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

async function upload(form: FormData) {
  const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}` },
    body: form,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('bulk CSV job: counts, poll URL and retry (spec › States › Bulk job (CSV form))', () => {
  it('counts start at 0, the 202 names its poll URL, and a retry re-runs the rows that failed validation', async () => {
    const csv = [
      'name,description,category,recipientEmail,imageFile',
      'Watch,Good row,Watches,owner@example.com,1.png',
      'Broken,Bad e-mail,Watches,not-an-email,1.png',
    ].join('\n');
    const created = await upload(csvForm(csv, await zipOf([{ name: '1.png', data: png('1') }])));
    expect(created.status).toBe(202);
    expect(created.body.data).toMatchObject({
      status: 'queued',
      totalCount: 2,
      processedCount: 0,
      successCount: 0,
      failedCount: 0,
    });
    const jobId = created.body.data.jobId as string;
    expect(created.body.data.pollUrl).toBe(`/api/bulk-mint/${jobId}`);
    expect(created.headers.get('location')).toBe(`/api/bulk-mint/${jobId}`);

    const done = await waitForJob(stack, auth, jobId);
    expect(done).toMatchObject({ status: 'completed', processedCount: 2, successCount: 1, failedCount: 1 });
    const rowError = done.errors[0];
    expect(rowError).toMatchObject({ row: 2 });

    const retry = await stack.call('POST', `/api/bulk-mint/${jobId}/retry`, { auth });
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({ jobId, retriedCount: 1 });
    const again = await waitForJob(stack, auth, jobId);
    expect(again).toMatchObject({ status: 'completed', processedCount: 2, successCount: 1, failedCount: 1 });
    expect(again.errors).toEqual([rowError]);
    // The job says when its retry began, so its own time runs from there (`bulk watch` reported
    // a 38 s retry as "completed in 0.1 s"), and the order form's name of the count reads it too.
    expect(Date.parse(again.retriedAt)).toBeGreaterThanOrEqual(Date.parse(done.completedAt));
    expect(Date.parse(again.completedAt)).toBeGreaterThanOrEqual(Date.parse(again.retriedAt));
    expect(done.retriedAt).toBeUndefined();
    expect(again.failureCount).toBe(again.failedCount);
  }, 240_000);
});
