// A fixed amount of the kind of work a bulk job does, timed in the same run: the job's time is
// read against it, because the 2-core machines these benches run on differ (the same code ran
// the 50,000-item job in 45–53 s on one and 21–23 s on another). Two parts, each on one core:
//  - Node: each item's metadata document serialized, parsed back and keccak-hashed, and a
//    random id drawn (what certificates does per item, without the rest);
//  - PostgreSQL: the items inserted into an indexed table in committed batches of 1,000 (a
//    logged table, as the services' are, dropped at the end).
import { randomBytes } from 'node:crypto';
import { keccak256, toUtf8Bytes } from 'ethers';
import pg from 'pg';

export interface MachineReference {
  nodeMs: number;
  postgresMs: number;
}

export async function machineReference(databaseUrl: string, items: number): Promise<MachineReference> {
  let started = performance.now();
  let digest = '';
  for (let i = 0; i < items; i++) {
    const doc = JSON.stringify({
      name: `Watch ${i}`,
      description: `Hand-made watch, No. ${i}`,
      image: `https://img.example.com/${i}.png`,
      attributes: [{ trait_type: 'Color', value: 'Blue' }],
      id: randomBytes(16).toString('hex'),
    });
    digest = keccak256(toUtf8Bytes(JSON.stringify(JSON.parse(doc))));
  }
  const nodeMs = performance.now() - started;
  if (!digest) throw new Error('no digest');

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const table = `bench_reference_${randomBytes(4).toString('hex')}`;
  try {
    await client.query(
      `CREATE TABLE ${table} (id text PRIMARY KEY, owner text NOT NULL, position int NOT NULL,
         doc jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(`CREATE INDEX ON ${table} (owner, created_at DESC)`);
    await client.query(`CREATE INDEX ON ${table} (position)`);
    started = performance.now();
    for (let from = 0; from < items; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, items - from) }, (_, k) => from + k);
      await client.query(
        `INSERT INTO ${table} (id, owner, position, doc)
         SELECT 'item_' || p, 'ent_reference', p, jsonb_build_object('name', 'Watch ' || p)
           FROM unnest($1::int[]) AS p`,
        [batch],
      );
    }
    return { nodeMs, postgresMs: performance.now() - started };
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await client.end();
  }
}
