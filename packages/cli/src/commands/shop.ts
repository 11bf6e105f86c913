// `hallmark shop install|order [units]`: the demo shop of `pnpm start`'s platform simulator —
// install the app on it (authorize → the platform's approval → callback → credentials), or
// sell it a paid order and follow it to its fulfilment and certificate vouchers.
import { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { devDataDir as dataDir, devToken } from '../dev-session.js';

export function shopCommand(): Command {
  const shop = new Command('shop').description("The dev stack's demo shop (platform simulator)");
  shop
    .command('install')
    .description('Install the app on the demo shop and print its credentials')
    .action(() => run('install', 0));
  shop
    .command('order')
    .description('The demo shop sells [units] handbags: a paid order, one job, fulfilled with the tx hash')
    .argument('[units]', 'handbags', (v) => Number(v), 3)
    .action((units: number) => run('order', units));
  return shop;
}

/** The demo shop of `pnpm start`'s platform simulator: install the app, or sell handbags. */
async function run(action: 'install' | 'order', units: number): Promise<void> {
  const file = path.join(dataDir(), 'platform-sim.json');
  if (!existsSync(file)) {
    console.error(
      'No platform simulator: start Hallmark with `pnpm start` (and no HALLMARK_PLATFORM_* set).',
    );
    process.exit(1);
  }
  const sim = JSON.parse(readFileSync(file, 'utf8')) as { url: string; shop: string; productId: number };
  const gateway = `http://127.0.0.1:${process.env.HALLMARK_PORT ?? 8080}`;
  const jwt = await devToken(undefined, { sub: 'dev-user', role: 'owner' });
  const auth = { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' };
  const fail = (what: string, res: Response, body: string) => {
    console.error(`${what} failed: HTTP ${res.status} ${body}`);
    process.exit(1);
  };

  if (action === 'install') {
    // What the merchant's browser does: authorize → the platform's approval → callback → app.
    const a = await fetch(`${gateway}/api/platform/auth/authorize`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ shop: sim.shop }),
    });
    const aBody = await a.text();
    if (!a.ok) fail('authorize', a, aBody);
    const page = await (await fetch((JSON.parse(aBody) as { authUrl: string }).authUrl)).text();
    const approve = /id="approve" href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const callback = (await fetch(approve, { redirect: 'manual' })).headers.get('location')!;
    const cb = await fetch(callback, { redirect: 'manual' });
    if (cb.status !== 302) fail('callback', cb, await cb.text());
    const token = new URL(cb.headers.get('location')!).searchParams.get('token')!;
    const c = await fetch(`${gateway}/api/platform/integration/credentials?token=${token}`);
    const creds = await c.text();
    if (!c.ok) fail('credentials', c, creds);
    console.log(`Installed on ${sim.shop}. The app's credentials (shown once):`);
    console.log(JSON.stringify(JSON.parse(creds).credentials, null, 2));
    return;
  }

  const o = await fetch(`${sim.url}/_sim/shops/${sim.shop}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lineItems: [{ productId: sim.productId, quantity: units }] }),
  });
  const created = (await o.json()) as {
    order: { id: number; name: string };
    sent: { topic: string; status: unknown }[];
  };
  if (!o.ok) fail('order', o, JSON.stringify(created));
  console.log(
    `Order ${created.order.name} (${units} × Leather handbag) paid; webhooks: ${created.sent.map((s) => `${s.topic} ${s.status}`).join(', ')}`,
  );
  const deadline = Date.now() + 120_000;
  let polls = 0;
  while (Date.now() < deadline) {
    const view = (await (await fetch(`${sim.url}/_sim/shops/${sim.shop}`)).json()) as {
      fulfillments: { orderId: number; trackingNumber: string; trackingUrl: string; via: string }[];
    };
    const f = view.fulfillments.find((x) => x.orderId === created.order.id);
    // The job list counts against the 100-per-15-minutes poll budget: read it every 5 s only.
    if (!f && ++polls % 10 === 0) {
      const latest = (await (await fetch(`${gateway}/api/bulk-mint?limit=1`, { headers: auth })).json()) as {
        data?: { jobs: { status: string; errors?: { error: string }[] }[] };
      };
      const job = latest.data?.jobs[0];
      if (job?.status === 'failed') {
        console.error(`The order's job failed: ${job.errors?.[0]?.error ?? 'see GET /api/bulk-mint'}`);
        process.exit(1);
      }
    }
    if (f) {
      console.log(`Fulfilled (${f.via}) with tracking number ${f.trackingNumber}\n  ${f.trackingUrl}`);
      const jobs = (await (await fetch(`${gateway}/api/bulk-mint?limit=1`, { headers: auth })).json()) as {
        data: { jobs: { jobId: string }[] };
      };
      const jobId = jobs.data.jobs[0]?.jobId;
      if (jobId) {
        const job = (await (await fetch(`${gateway}/api/bulk-mint/${jobId}`, { headers: auth })).json()) as {
          job: { results: { vouchers: { url: string; referenceNumber: string }[] } };
        };
        console.log(`Certificate vouchers of job ${jobId}:`);
        for (const v of job.job.results.vouchers) console.log(`  ${v.referenceNumber}  ${v.url}`);
      }
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.error(
    'The order was not fulfilled within 2 minutes (is the app installed? `pnpm hallmark shop install`).',
  );
  process.exit(1);
}
