// The shop integration: its state for a shop (installed, the key it uses, the last order that
// could not become a certificate job) and its settings (automatic fulfilment).
import { useState } from 'preact/hooks';
import { client, type PageProps } from '../api';
import { ErrorNote, Notice, Page, Status, useAction, when } from '../ui';

type Integration = Awaited<ReturnType<typeof load>>['integration'];
const load = (mode: PageProps['mode'], shop: string) =>
  client(mode).get('/api/platform/integration', { params: { query: { shop } } });

export default function Shop(p: PageProps) {
  const [shop, setShop] = useState(localStorage.getItem('hallmark.console.shop') ?? '');
  const [integration, setIntegration] = useState<Integration | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  const look = (e?: Event) => {
    e?.preventDefault();
    localStorage.setItem('hallmark.console.shop', shop.trim());
    void act.run(async () => setIntegration((await load(p.mode, shop.trim())).integration));
  };
  const setAuto = (autoFulfill: boolean) =>
    void act.run(async () => {
      const r = await client(p.mode).patch('/api/platform/integration/settings', {
        body: { shop: integration!.shop, settings: { autoFulfill } },
      });
      setIntegration(r.integration);
      setSaved(true);
    });
  return (
    <Page title="Shop" intro="Your e-commerce shop's connection: paid orders become certificates.">
      <form class="inline" onSubmit={look} aria-label="Find the shop">
        <label>
          Shop domain{' '}
          <input
            value={shop}
            required
            placeholder="your-shop.example"
            onInput={(e) => setShop((e.target as HTMLInputElement).value)}
          />
        </label>
        <button class="primary" disabled={act.busy}>
          Show
        </button>
      </form>
      <ErrorNote error={act.error} />
      {integration && (
        <section class="panel" aria-labelledby="shop-title">
          <h2 id="shop-title">{integration.shop}</h2>
          <p>
            <Status value={integration.status} /> installed {when(integration.installedAt)}, key{' '}
            <code>{integration.apiKeyId ?? 'none'}</code>
          </p>
          {integration.lastError ? (
            <p class="bad">Last failed order: {JSON.stringify(integration.lastError)}</p>
          ) : (
            <p class="good">Every recent paid order became its certificate job.</p>
          )}
          <label class="check">
            <input
              type="checkbox"
              checked={integration.settings.autoFulfill}
              disabled={act.busy}
              onChange={(e) => setAuto((e.target as HTMLInputElement).checked)}
            />{' '}
            Mark orders fulfilled once their certificates exist
          </label>
          {saved && <Notice>Settings saved.</Notice>}
        </section>
      )}
    </Page>
  );
}
