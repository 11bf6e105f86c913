// Webhooks: the endpoints (versioned events) and the enterprise subscriptions (bulk and order
// events), each with its status, delivery log, test send and replay of a failed delivery.
// Every list pages through the API's own pagination.
import { useState } from 'preact/hooks';
import type { Schemas } from '@hallmark/client';
import { client, type PageProps } from '../api';
import { ErrorNote, Notice, Page, Pager, Status, pageOf, useAction, useLoad, when } from '../ui';

type Delivery = Schemas['Delivery'];
type Target = { kind: 'endpoint' | 'subscription'; id: string; url: string };

function Deliveries({ mode, target }: { mode: PageProps['mode']; target: Target }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<'' | 'failed' | 'succeeded' | 'pending'>('');
  const [note, setNote] = useState('');
  const act = useAction();
  const log = useLoad(async () => {
    const query = { page, limit: 20, ...(status ? { status } : {}) };
    const path = { webhook_id: target.id };
    const r =
      target.kind === 'endpoint'
        ? await client(mode).get('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path, query } })
        : await client(mode).get('/api/enterprise/webhooks/{webhook_id}/deliveries', {
            params: { path, query },
          });
    return r;
  }, [target.id, page, status]);
  const test = () =>
    void act.run(async () => {
      const path = { webhook_id: target.id };
      if (target.kind === 'endpoint')
        await client(mode).post('/api/v1/webhooks/{webhook_id}/test', { params: { path }, body: {} });
      else
        await client(mode).post('/api/enterprise/webhooks/{webhook_id}/test', { params: { path }, body: {} });
      setNote('Test event sent: it appears in the log below.');
      log.reload();
    });
  const replay = (d: Delivery) =>
    void act.run(async () => {
      const path = { webhook_id: target.id, delivery_id: d.id };
      if (target.kind === 'endpoint')
        await client(mode).post('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
          params: { path },
        });
      else
        await client(mode).post('/api/enterprise/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
          params: { path },
        });
      setNote(`Delivery ${d.id} queued again.`);
      log.reload();
    });
  return (
    <section aria-labelledby="log-title" class="panel">
      <h2 id="log-title">Deliveries to {target.url}</h2>
      <div class="inline">
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(e) => (setStatus((e.target as HTMLSelectElement).value as never), setPage(1))}
          >
            <option value="">any</option>
            <option value="failed">failed</option>
            <option value="succeeded">succeeded</option>
            <option value="pending">pending</option>
          </select>
        </label>
        <button type="button" onClick={test} disabled={act.busy}>
          Send test event
        </button>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      {note && <Notice>{note}</Notice>}
      <ErrorNote error={act.error ?? log.error} />
      <table>
        <caption>Delivery log</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {log.data?.deliveries.map((d) => {
            const last = d.attempt_log?.[d.attempt_log.length - 1];
            return (
              <tr key={d.id}>
                <td>{d.event_type}</td>
                <td>
                  <Status value={d.status} />
                </td>
                <td>
                  {d.attempts}/{d.max_attempts}
                </td>
                <td>{last ? (last.error ?? `HTTP ${last.status_code}`) : '—'}</td>
                <td>{when(d.created_at)}</td>
                <td>
                  {d.status === 'failed' && (
                    <button type="button" onClick={() => replay(d)} disabled={act.busy}>
                      Replay<span class="sr-only"> delivery {d.id}</span>
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {log.data && log.data.deliveries.length === 0 && <p>No delivery yet.</p>}
      <Pager
        label="Deliveries"
        page={page}
        totalPages={log.data?.pagination.total_pages ?? 1}
        onPage={setPage}
      />
    </section>
  );
}

export default function Webhooks(p: PageProps) {
  const [page, setPage] = useState(1);
  const [subPage, setSubPage] = useState(1);
  const [target, setTarget] = useState<Target | null>(null);
  const [url, setUrl] = useState('');
  const endpoints = useLoad(
    () => client(p.mode).get('/api/v1/webhooks', { params: { query: { page, limit: 20 } } as never }),
    [p.mode, page],
  );
  const subs = useLoad(() => client(p.mode).get('/api/enterprise/webhooks'), [p.mode]);
  const types = useLoad(() => client(p.mode).get('/api/v1/webhooks/event-types'), [p.mode]);
  const act = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const events = form.getAll('events').map(String);
    void act.run(async () => {
      await client(p.mode).post('/api/v1/webhooks', {
        body: { url, events: events.length ? events : (types.data?.data.map((t) => t.type) ?? []) },
      });
      setUrl('');
      endpoints.reload();
    });
  };
  const shownSubs = pageOf(subs.data?.webhooks ?? [], subPage);
  return (
    <Page
      title="Webhooks"
      intro="Where Hallmark tells your systems what happened, and whether they heard it."
    >
      <section aria-labelledby="ep-title">
        <h2 id="ep-title">Endpoints</h2>
        <form class="inline" onSubmit={create} aria-label="Add an endpoint">
          <label>
            URL{' '}
            <input
              type="url"
              required
              value={url}
              onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
            />
          </label>
          <fieldset>
            <legend>Events (none ticked: every event)</legend>
            {types.data?.data.map((t) => (
              <label key={t.type} class="check">
                <input type="checkbox" name="events" value={t.type} /> {t.type}
              </label>
            ))}
          </fieldset>
          <button class="primary" disabled={act.busy}>
            Add endpoint
          </button>
        </form>
        <ErrorNote error={act.error ?? endpoints.error} />
        <table>
          <caption>Webhook endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Events</th>
              <th scope="col">Log</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.data?.webhooks.map((w) => (
              <tr key={w.id}>
                <td>{w.url}</td>
                <td>
                  <Status value={w.status} />
                </td>
                <td>{w.events.join(', ')}</td>
                <td>
                  <button type="button" onClick={() => setTarget({ kind: 'endpoint', id: w.id, url: w.url })}>
                    Deliveries<span class="sr-only"> of {w.url}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <Pager
          label="Endpoints"
          page={page}
          totalPages={endpoints.data?.pagination.total_pages ?? 1}
          onPage={setPage}
        />
      </section>
      <section aria-labelledby="sub-title">
        <h2 id="sub-title">Enterprise subscriptions</h2>
        <ErrorNote error={subs.error} />
        <table>
          <caption>Enterprise webhook subscriptions</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Last error</th>
              <th scope="col">Log</th>
            </tr>
          </thead>
          <tbody>
            {shownSubs.items.map((w) => (
              <tr key={w.id}>
                <td>{w.url}</td>
                <td>
                  <Status value={w.status ?? (w.enabled ? 'active' : 'disabled')} />
                </td>
                <td>{w.lastError ?? '—'}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => setTarget({ kind: 'subscription', id: w.id, url: w.url })}
                  >
                    Deliveries<span class="sr-only"> of {w.url}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {subs.data && subs.data.webhooks.length === 0 && <p>No subscription.</p>}
        <Pager label="Subscriptions" page={subPage} totalPages={shownSubs.totalPages} onPage={setSubPage} />
      </section>
      {target && <Deliveries key={target.id} mode={p.mode} target={target} />}
    </Page>
  );
}
