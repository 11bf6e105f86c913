// The kit's Restate module against a real Restate server: each release's endpoint is a
// deployment of its own (versioned URI, registered without force), an invocation started on
// the old release finishes there while new ones go to the new release, the drain step
// removes only superseded deployments with nothing in flight, the typed ingress client
// carries the caller's request id, and an endpoint refuses another release's invocations.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createLogger,
  registerRestateDeployment,
  removeDrainedDeployments,
  restateDeployments,
  runWithContext,
} from '@hallmark/kit';
import { restateEndpoint, restateIngress, sendOpts } from '@hallmark/kit/restate';
import { h2Status } from '@hallmark/kit/testing';
import * as restate from '@restatedev/restate-sdk';
import { freePort, startRestate, type RestateHandle } from '../src/index.js';
import { tempDataDir } from './helpers.js';

/** A workflow that waits for its `go` signal and answers with the release that ran it. */
const upgradeProbe = (release: string) =>
  restate.workflow({
    name: 'UpgradeProbe',
    handlers: {
      run: async (ctx: restate.WorkflowContext) => {
        await ctx.promise<boolean>('go');
        return { release, requestId: ctx.request().headers.get('x-request-id') ?? null };
      },
      go: async (ctx: restate.WorkflowSharedContext) => {
        await ctx.promise<boolean>('go').resolve(true);
      },
    },
  });
const UpgradeProbe: ReturnType<typeof upgradeProbe> = { name: 'UpgradeProbe' };

const tmp = tempDataDir('restate-upgrade');
const log = createLogger('restate-upgrade-test', 'silent');
let server: RestateHandle;
const endpoints: { stop(): Promise<void> }[] = [];

async function releaseEndpoint(release: string) {
  const endpoint = restateEndpoint([upgradeProbe(release)], {
    host: '127.0.0.1',
    port: await freePort(),
    release,
    adminUrl: null,
    log,
  });
  await endpoint.start();
  endpoints.push(endpoint);
  return endpoint;
}

/** Polls (short interval) until `check` holds. */
async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

beforeAll(async () => {
  server = await startRestate({
    dataDir: tmp.dir,
    ingressPort: await freePort(),
    adminPort: await freePort(),
    nodePort: await freePort(),
    logFile: tmp.log('restate'),
  });
});
afterAll(async () => {
  // Restate first: it holds HTTP/2 sessions open to the endpoints, which close waits for.
  await server?.stop();
  for (const e of endpoints) await e.stop();
  tmp.cleanup();
});

describe('Restate upgrades (kit restate module)', () => {
  it('an invocation started before an upgrade finishes on its release; new ones go to the new release; only the drained one is removed', async () => {
    const admin = server.adminUrl;
    const ingress = restateIngress(server.ingressUrl);
    const v1 = await releaseEndpoint('1.0.0');
    expect(v1.uri).toMatch(/\/1\.0\.0$/);
    await registerRestateDeployment(admin, v1.uri);
    // A restarted pod of the same release registers again: accepted, no force needed.
    await registerRestateDeployment(admin, v1.uri);

    await runWithContext({ requestId: 'req_before_upgrade' }, () =>
      ingress.workflowClient(UpgradeProbe, 'old').workflowSubmit(sendOpts({ timeoutMs: 5000 })),
    );
    const v1Id = async () => (await restateDeployments(admin)).find((d) => d.uri === v1.uri)!;
    await until(async () => (await v1Id()).inFlight === 1, 'the first run is pinned to release 1.0.0');

    const v2 = await releaseEndpoint('1.1.0');
    await registerRestateDeployment(admin, v2.uri);
    // Superseded but not drained: kept.
    expect(await removeDrainedDeployments(admin)).toEqual([]);
    expect((await v1Id()).services).toEqual([{ name: 'UpgradeProbe', latest: false }]);

    await ingress.workflowClient(UpgradeProbe, 'new').workflowSubmit(sendOpts({ timeoutMs: 5000 }));
    for (const key of ['old', 'new']) await ingress.workflowClient(UpgradeProbe, key).go();
    expect(await ingress.workflowClient(UpgradeProbe, 'old').workflowAttach()).toEqual({
      release: '1.0.0',
      requestId: 'req_before_upgrade',
    });
    expect((await ingress.workflowClient(UpgradeProbe, 'new').workflowAttach()).release).toBe('1.1.0');

    const removed = await removeDrainedDeployments(admin);
    expect(removed.map((d) => d.uri)).toEqual([v1.uri]);
    expect((await restateDeployments(admin)).map((d) => d.uri)).toEqual([v2.uri]);
  });

  it("an endpoint refuses another release's invocations (404) instead of running them", async () => {
    const v3 = await releaseEndpoint('1.2.0');
    const port = new URL(v3.uri).port;
    const status = (path: string) =>
      h2Status(`http://127.0.0.1:${port}`, path, {
        accept: 'application/vnd.restate.endpointmanifest.v3+json',
      });
    expect(await status('/1.0.0/discover')).toBe(404);
    expect(await status('/discover')).toBe(404);
    expect(await status('/1.2.0/discover')).toBe(200);
  });
});
