// The demo platform `pnpm start` runs when no platform is configured: the simulator with a
// demo shop and a product whose image it serves over HTTPS, and the app page an install
// returns to. `env` is what the dev stack needs to use it.
import { mkdirSync } from 'node:fs';
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
