// The shop integrations: every shop the enterprise installed the app in (paged,
// `GET /api/platform/integrations`), and for the one chosen its state (installed, the key it
// uses, the last order that could not become a certificate job) and its settings (automatic
// fulfilment).
import { useState } from 'preact/hooks';
import type { Data } from '@hallmark/client';
import { client, type PageProps } from '../api';
import { ErrorNote, Notice, Page, Pager, Status, useAction, useLoad, when } from '../ui';

type Integration = Data<'get', '/api/platform/integrations'>['data']['integrations'][number];

function Detail({
  mode,
  integration,
  onSaved,
}: {
  mode: PageProps['mode'];
  integration: Integration;
  onSaved: () => void;
}) {
  const [shown, setShown] = useState(integration);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  const setAuto = (autoFulfill: boolean) =>
    void act.run(async () => {
      const r = await client(mode).patch('/api/platform/integration/settings', {
        body: { shop: shown.shop, settings: { autoFulfill } },
      });
      setShown(r.integration as Integration);
      setSaved(true);
      onSaved();
    });
  return (
    <section class="panel" aria-labelledby="shop-title">
      <h2 id="shop-title">{shown.shop}</h2>
      <p>
        <Status value={shown.status} /> installed {when(shown.installedAt)}, key{' '}
        <code>{shown.apiKeyId ?? 'none'}</code>
      </p>
      {shown.lastError ? (
        <p class="bad">Last failed order: {JSON.stringify(shown.lastError)}</p>
      ) : (
        <p class="good">Every recent paid order became its certificate job.</p>
      )}
      <label class="check">
        <input
          type="checkbox"
          checked={shown.settings.autoFulfill}
          disabled={act.busy || shown.status !== 'active'}
          onChange={(e) => setAuto((e.target as HTMLInputElement).checked)}
        />{' '}
        Mark orders fulfilled once their certificates exist
      </label>
      {saved && <Notice>Settings saved.</Notice>}
      <ErrorNote error={act.error} />
    </section>
  );
}

export default function Shop(p: PageProps) {
  const [page, setPage] = useState(1);
  const [chosen, setChosen] = useState<string | null>(null);
  const list = useLoad(
    () => client(p.mode).get('/api/platform/integrations', { params: { query: { page, limit: 20 } } }),
    [p.mode, page],
  );
  const shops = list.data?.data.integrations ?? [];
  const current = shops.find((i) => i.shop === chosen) ?? (shops.length === 1 ? shops[0] : undefined);
  return (
    <Page title="Shop" intro="Your e-commerce shops' connections: paid orders become certificates.">
      <ErrorNote error={list.error} />
      <table>
        <caption>Shops with the app installed, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Shop</th>
            <th scope="col">Status</th>
            <th scope="col">Installed</th>
            <th scope="col">Automatic fulfilment</th>
            <th scope="col">
              <span class="sr-only">Open</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shops.map((i) => (
            <tr key={i.shop}>
              <td>{i.shop}</td>
              <td>
                <Status value={i.status} />
              </td>
              <td>{when(i.installedAt)}</td>
              <td>{i.settings.autoFulfill ? 'on' : 'off'}</td>
              <td>
                <button
                  type="button"
                  onClick={() => setChosen(i.shop)}
                  aria-pressed={current?.shop === i.shop}
                >
                  Open<span class="sr-only"> {i.shop}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && shops.length === 0 && (
        <p>No shop yet: install the app from your shop's admin, and it appears here.</p>
      )}
      <Pager
        label="Shops"
        page={page}
        totalPages={list.data?.data.pagination.totalPages ?? 1}
        onPage={setPage}
      />
      {current && <Detail key={current.shop} mode={p.mode} integration={current} onSaved={list.reload} />}
    </Page>
  );
}
