// The demo platform `pnpm start` runs when no platform is configured: the simulator with a
// demo shop and a product whose image it serves over HTTPS, and the app page an install
// returns to. `env` is what the dev stack needs to use it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startImageHost } from './images.js';
import { startPlatformSim } from './start.js';

export const DEMO_SHOP = 'hallmark-demo.myshopify.com';

export interface DemoPlatform {
  url: string;
  shop: string;
  productId: number;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startDemoPlatform(opts: {
  dataDir: string;
  port: number;
  imagesPort: number;
  apiKey: string;
  apiSecret: string;
}): Promise<DemoPlatform> {
  mkdirSync(opts.dataDir, { recursive: true });
  const images = await startImageHost({ dir: opts.dataDir, port: opts.imagesPort });
  const sim = await startPlatformSim({ apiKey: opts.apiKey, apiSecret: opts.apiSecret, port: opts.port });
  sim.sim.addShop(DEMO_SHOP);
  const product = sim.sim.addProduct(DEMO_SHOP, {
    title: 'Leather handbag',
    vendor: 'Hallmark Demo Atelier',
    productType: 'Handbag',
    imageUrl: `${images.url}/products/leather-handbag.png`,
    sku: 'HB-001',
    price: '450.00',
  });
  return {
    url: sim.url,
    shop: DEMO_SHOP,
    productId: product.id,
    env: {
      HALLMARK_PLATFORM_ADMIN_URL: sim.adminUrlTemplate,
      HALLMARK_PLATFORM_API_KEY: opts.apiKey,
      HALLMARK_PLATFORM_API_SECRET: opts.apiSecret,
      HALLMARK_PLATFORM_APP_URL: `${sim.url}/_sim/app`,
    },
    async close() {
      await sim.close();
      await images.close();
    },
  };
}

/**
 * The demo platform wired into a dev stack as `pnpm start` runs it (and the README walk test):
 * a fresh app secret (the simulator keeps its shops in memory anyway), `<dataDir>/platform-sim.json`
 * for `hallmark shop`, and the stack's env: the platform variables, the simulator's CA added
 * to the ones Node already trusts (its product images are HTTPS), and 127.0.0.1 allowed for
 * outbound fetches unless the caller set HALLMARK_OUTBOUND_ALLOW_HOSTS.
 */
export async function startDevPlatform(opts: {
  dataDir: string;
  port: number;
  imagesPort: number;
  env?: NodeJS.ProcessEnv;
}): Promise<{ platform: DemoPlatform; env: Record<string, string> }> {
  const env = opts.env ?? process.env;
  const platform = await startDemoPlatform({
    dataDir: opts.dataDir,
    port: opts.port,
    imagesPort: opts.imagesPort,
    apiKey: 'hallmark-dev-app',
    apiSecret: randomBytes(24).toString('hex'),
  });
  const own = env.NODE_EXTRA_CA_CERTS;
  const bundle = path.join(opts.dataDir, 'extra-ca-bundle.pem');
  const sim = readFileSync(path.join(opts.dataDir, 'platform-sim-ca.pem'), 'utf8');
  writeFileSync(
    bundle,
    [own && existsSync(own) ? readFileSync(own, 'utf8') : '', sim].filter(Boolean).join('\n'),
  );
  writeFileSync(
    path.join(opts.dataDir, 'platform-sim.json'),
    JSON.stringify({ url: platform.url, shop: platform.shop, productId: platform.productId }),
  );
  return {
    platform,
    env: {
      ...platform.env,
      NODE_EXTRA_CA_CERTS: bundle,
      ...(env.HALLMARK_OUTBOUND_ALLOW_HOSTS ? {} : { HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1' }),
    },
  };
}
