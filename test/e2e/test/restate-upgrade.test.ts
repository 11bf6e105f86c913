// Workflows survive upgrades (docs/runbooks/upgrade.md): a bulk job whose run started on
// release 1.0.0 is still running when a bulk process of release 1.1.0 starts and registers
// its own Restate deployment. The old run finishes on 1.0.0 (the old process keeps serving it)
// with every item minted once; a job created after the upgrade runs on 1.1.0; the drain step
// then removes 1.0.0 and only it.
//
// The run is held in flight without timing: the certificates service is stopped before the
// first job is created, so its run waits (retrying MintBatch) until it is started again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { removeDrainedDeployments, restateDeployments } from '@hallmark/kit';
import { idempotencyKeyOf, orderBody, serviceQuery, waitForJob } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let admin: string;

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: { HALLMARK_RELEASE: '1.0.0', HALLMARK_BULK_FETCH_IMAGES: 'false', HALLMARK_BULK_BATCH_SIZE: '5' },
  });
  admin = stack.restate!.adminUrl;
}, 180_000);

afterAll(async () => stack?.close());

/** Where Restate runs each bulk job's invocation: job id → pinned deployment and status. */
async function bulkInvocations(): Promise<Map<string, { deployment: string | null; status: string }>> {
  const res = await fetch(`${admin}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      query:
        "SELECT target_service_key AS job, pinned_deployment_id AS deployment, status FROM sys_invocation WHERE target_service_name = 'BulkJob'",
    }),
  });
  const { rows } = (await res.json()) as {
    rows: { job: string; deployment: string | null; status: string }[];
  };
  return new Map(rows.map((r) => [r.job, { deployment: r.deployment, status: r.status }]));
}

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

/** The BulkJob deployment registered at the URI ending in `/<release>`. */
const bulkDeployment = async (release: string) =>
  (await restateDeployments(admin)).find(
    (d) => d.uri.endsWith(`/${release}`) && d.services.some((s) => s.name === 'BulkJob'),
  );

async function createJob(auth: string, units: number): Promise<string> {
  const body = orderBody(units);
  const created = await stack.call('POST', '/api/bulk-mint', {
    auth,
    body,
    headers: { 'idempotency-key': idempotencyKeyOf(body) },
  });
  expect(created.status).toBe(201);
  return created.body.jobId as string;
}

describe('a Restate deployment upgrade', () => {
  it('a bulk job started before the upgrade finishes after it on its own release, each item once; new jobs run on the new release', async () => {
    const ent = `ent_${'u'.repeat(24)}`;
    const auth = await stack.token({ ent });
    const v1 = await until(() => bulkDeployment('1.0.0'), 'release 1.0.0 registered');

    await stack.processes.get('certificates')!.stop();
    const before = await createJob(auth, 20);
    const pinned = await until(
      async () => (await bulkInvocations()).get(before)?.deployment ?? undefined,
      'run',
    );
    expect(pinned).toBe(v1.id);

    // The upgrade: a bulk process of release 1.1.0 beside the running one, registering its own
    // deployment (no force); the 1.0.0 process keeps running for what is pinned to it.
    await stack.startReplica('bulk', 2, {
      HALLMARK_RELEASE: '1.1.0',
      HALLMARK_BULK_RESTATE_REGISTER: 'true',
    });
    const v2 = await until(() => bulkDeployment('1.1.0'), 'release 1.1.0 registered');
    expect(v2.id).not.toBe(v1.id);
    // Not drained yet: the draining step keeps 1.0.0.
    expect(await removeDrainedDeployments(admin)).toEqual([]);

    const after = await createJob(auth, 10);
    await stack.startService('certificates');
    const [jobBefore, jobAfter] = [
      await waitForJob(stack, auth, before),
      await waitForJob(stack, auth, after),
    ];
    expect([
      jobBefore.status,
      jobBefore.summary.successCount,
      jobAfter.status,
      jobAfter.summary.successCount,
    ]).toEqual(['completed', 20, 'completed', 10]);
    const runs = await bulkInvocations();
    expect([runs.get(before), runs.get(after)]).toEqual([
      { deployment: v1.id, status: 'completed' },
      { deployment: v2.id, status: 'completed' },
    ]);

    // Each item once: 30 certificates, 30 distinct tokens, 30 vouchers.
    const [certs] = await serviceQuery<{ n: number; tokens: number }>(
      stack,
      'certificates',
      'SELECT count(*) AS n, count(DISTINCT token_id) AS tokens FROM certificates WHERE enterprise_id = $1',
      [ent],
    );
    const [vouchers] = await serviceQuery<{ n: number }>(
      stack,
      'certificates',
      'SELECT count(*) AS n FROM certificate_vouchers WHERE enterprise_id = $1',
      [ent],
    );
    expect([Number(certs!.n), Number(certs!.tokens), Number(vouchers!.n)]).toEqual([30, 30, 30]);

    // Drained: 1.0.0 is removed (its process may now stop), 1.1.0 stays.
    expect((await removeDrainedDeployments(admin)).map((d) => d.id)).toEqual([v1.id]);
    expect(await bulkDeployment('1.1.0')).toBeDefined();
    expect(await bulkDeployment('1.0.0')).toBeUndefined();
  }, 300_000);
});
