import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort, registerDeployment, startRestate, type RestateHandle } from '../src/index.js';
import { tempDataDir } from './helpers.js';

const tmp = tempDataDir('restate');
let restate: RestateHandle | undefined;
afterAll(async () => {
  await restate?.stop();
  tmp.cleanup();
});

describe('startRestate', () => {
  it('runs restate-server with ingress and admin on the requested ports and reports healthy', async () => {
    const [ingressPort, adminPort, nodePort] = [await freePort(), await freePort(), await freePort()];
    restate = await startRestate({
      dataDir: tmp.dir,
      ingressPort,
      adminPort,
      nodePort,
      logFile: tmp.log('restate'),
    });
    expect(restate.adminUrl).toBe(`http://127.0.0.1:${adminPort}`);
    expect(restate.ingressUrl).toBe(`http://127.0.0.1:${ingressPort}`);
    expect((await fetch(`${restate.adminUrl}/health`)).status).toBe(200);
    // The ingress answers too (404 for an unknown service, not a refused connection).
    expect((await fetch(`${restate.ingressUrl}/NoSuchService/handler`, { method: 'POST' })).status).toBe(404);
  });

  it('registerDeployment reports why Restate refused a deployment', async () => {
    if (!restate) throw new Error('restate did not start');
    const deadPort = await freePort();
    await expect(registerDeployment(restate.adminUrl, `http://127.0.0.1:${deadPort}/`)).rejects.toThrow(
      /Restate refused deployment/,
    );
  });
});
