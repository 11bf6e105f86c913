import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort, jsonRpc, startAnvil, type AnvilHandle } from '../src/index.js';
import { tempDataDir } from './helpers.js';

const tmp = tempDataDir('anvil');
const handles: AnvilHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  tmp.cleanup();
});

describe('startAnvil', () => {
  it('answers eth_chainId with 31337', async () => {
    const h = await startAnvil({ port: await freePort(), logFile: tmp.log('anvil') });
    handles.push(h);
    expect(h.chainId).toBe(31337);
    expect(await jsonRpc<string>(h.rpcUrl, 'eth_chainId')).toBe('0x7a69');
    await h.stop();
  });

  it('refuses a port that another process already listens on instead of talking to that process', async () => {
    const other = await startAnvil({ port: await freePort(), logFile: tmp.log('anvil') });
    handles.push(other);
    const port = Number(new URL(other.rpcUrl).port);
    await expect(startAnvil({ port, logFile: tmp.log('anvil') })).rejects.toThrow(
      `anvil: port ${port} on 127.0.0.1 is already in use`,
    );
    await other.stop();
  });

  it('keeps chain state across a restart when given a data dir', async () => {
    const port = await freePort();
    const first = await startAnvil({ port, dataDir: tmp.dir, logFile: tmp.log('anvil') });
    handles.push(first);
    await jsonRpc(first.rpcUrl, 'anvil_mine', ['0x3']);
    expect(Number(await jsonRpc<string>(first.rpcUrl, 'eth_blockNumber'))).toBe(3);
    await first.stop();

    const second = await startAnvil({ port, dataDir: tmp.dir, logFile: tmp.log('anvil') });
    handles.push(second);
    expect(Number(await jsonRpc<string>(second.rpcUrl, 'eth_blockNumber'))).toBe(3);
  });
});
