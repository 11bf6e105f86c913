// The usage recorder ships what a busy second queued in batches grouped by key, over real
// gRPC to an in-process KeysService that keeps the batches it is sent: every record arrives
// once, and each batch names only a share of the keys (the keys service's work is per key
// in a batch), not every key again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bind, createGrpcClient, createLogger, startGrpcServer, type RunningGrpcServer } from '@hallmark/kit';
import {
  KeysServiceClient,
  KeysServiceService,
  type RecordUsageRequest,
  type UsageRecord,
} from '@hallmark/proto/keys/v1/keys';
import { UsageRecorder } from '../src/auth/usage-recorder.js';

const log = createLogger('usage-recorder-test', 'silent');
const received: RecordUsageRequest[] = [];
let server: RunningGrpcServer;
let keys: ReturnType<typeof createGrpcClient<KeysServiceClient>>;

beforeAll(async () => {
  server = await startGrpcServer({
    name: 'keys-usage',
    address: '127.0.0.1:0',
    log,
    services: [
      bind(
        KeysServiceService as never,
        {
          recordUsage: async (req: RecordUsageRequest) => {
            received.push(req);
            return { accepted: req.records.length };
          },
        } as never,
      ),
    ],
  });
  keys = createGrpcClient(KeysServiceClient, `127.0.0.1:${server.port}`);
});
afterAll(async () => {
  keys.close();
  await server.shutdown(0);
});

const record = (key: number, i: number): UsageRecord => ({
  key_id: `apikey_${String(key).padStart(24, '0')}`,
  method: 'GET',
  path: '/api/v1/things',
  status_code: 200,
  latency_ms: 1,
  ip_address: '127.0.0.1',
  at: new Date(1_800_000_000_000 + i).toISOString(),
});

describe('UsageRecorder', () => {
  it('ships every record once, in batches of whole keys: 5,000 records of 100 keys interleaved make 5 batches of about 20 keys each', async () => {
    received.length = 0;
    const recorder = new UsageRecorder(keys.api, log, { maxBatch: 1000 });
    const sent: UsageRecord[] = [];
    // Requests of 100 keys in turn, as a busy gateway answers them.
    for (let i = 0; i < 5000; i++) {
      const r = record(i % 100, i);
      sent.push(r);
      recorder.record(r);
    }
    await recorder.flush();
    expect(received.map((b) => b.records.length)).toEqual([1000, 1000, 1000, 1000, 1000]);
    const shipped = received.flatMap((b) => b.records);
    expect(shipped).toHaveLength(5000);
    expect(new Set(shipped.map((r) => r.at))).toEqual(new Set(sent.map((r) => r.at)));
    for (const batch of received) expect(new Set(batch.records.map((r) => r.key_id)).size).toBe(20);
    // A key's records keep their order.
    const ofKey = shipped.filter((r) => r.key_id === sent[7]!.key_id).map((r) => r.at);
    expect(ofKey).toEqual([...ofKey].sort());
  });

  it('a key with more records than a batch holds fills batches whole and continues in the next', async () => {
    received.length = 0;
    const recorder = new UsageRecorder(keys.api, log, { maxBatch: 1000 });
    for (let i = 0; i < 1500; i++) recorder.record(record(1, i));
    for (let i = 0; i < 300; i++) recorder.record(record(2, i));
    await recorder.flush();
    expect(received.map((b) => b.records.length)).toEqual([1000, 800]);
    expect(received[1]!.records.filter((r) => r.key_id === record(1, 0).key_id)).toHaveLength(500);
    await recorder.flush();
    expect(received).toHaveLength(2); // nothing left, nothing sent twice
  });
});
