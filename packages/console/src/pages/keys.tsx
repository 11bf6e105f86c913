// API keys: the list (paged here: the API answers it whole), create with a one-time reveal of
// the secret, rotate (the new secret is revealed once; the old one keeps working until the
// time the API says), revoke (confirmed) and each key's usage.
import { useState } from 'preact/hooks';
import type { Schemas } from '@hallmark/client';
import { client, type PageProps } from '../api';
import { ConfirmButton, ErrorNote, Page, Pager, Status, pageOf, useAction, useLoad, when } from '../ui';

type ApiKey = Schemas['ApiKey'];
const PERMISSIONS = [
  'admin.*',
  'bulk:mint',
  'bulk:retry',
  'transactions.read',
  'transactions.create',
  'reports.read',
];

/** A secret shown once: the API will never answer it again. */
function Reveal({ secret, what, onDone }: { secret: string; what: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="reveal" role="region" aria-label="New secret">
      <p>
        <strong>{what}</strong> Copy it now: it is shown only once.
      </p>
      <code class="secret" data-testid="secret">
        {secret}
      </code>
      <div class="actions">
        <button
          type="button"
          onClick={() => navigator.clipboard?.writeText(secret).then(() => setCopied(true))}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="primary" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </div>
  );
}

function Usage({ mode, keyId }: { mode: PageProps['mode']; keyId: string }) {
  const [period, setPeriod] = useState<'24h' | '7d' | '30d'>('24h');
  const u = useLoad(
    () =>
      client(mode).get('/api/v1/api-keys/{key_id}/usage', {
        params: { path: { key_id: keyId }, query: { period } },
      }),
    [keyId, period],
  );
  return (
    <div class="usage">
      <label>
        Period{' '}
        <select
          value={period}
          onChange={(e) => setPeriod((e.target as HTMLSelectElement).value as typeof period)}
        >
          <option value="24h">24 hours</option>
          <option value="7d">7 days</option>
          <option value="30d">30 days</option>
        </select>
      </label>
      <ErrorNote error={u.error} />
      {u.data && (
        <p>
          {u.data.totalRequests} requests ({u.data.successfulRequests} succeeded, {u.data.failedRequests}{' '}
          failed), average {Math.round(u.data.averageLatency)} ms.
        </p>
      )}
    </div>
  );
}

export default function Keys(p: PageProps) {
  const [page, setPage] = useState(1);
  const [secret, setSecret] = useState<{ value: string; what: string } | null>(null);
  const [usageOf, setUsageOf] = useState<string | null>(null);
  const list = useLoad(() => client(p.mode).get('/api/v1/api-keys'), [p.mode]);
  const act = useAction();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState('admin.*');

  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const k = await client(p.mode).post('/api/v1/api-keys', {
        body: { name, type: p.mode === 'test' ? 'test' : 'production', permissions: [permission] },
      });
      setSecret({ value: k.key!, what: `Key “${k.name}” created.` });
      setName('');
      list.reload();
    });
  };
  const rotate = (k: ApiKey) =>
    void act.run(async () => {
      const r = await client(p.mode).post('/api/v1/api-keys/{key_id}/rotate', {
        params: { path: { key_id: k.id } },
        body: {},
      });
      const until = r.previousKeyValidUntil
        ? ` The old secret works until ${when(r.previousKeyValidUntil)}.`
        : '';
      setSecret({ value: r.key!, what: `Key “${k.name}” rotated.${until}` });
      list.reload();
    });
  const revoke = (k: ApiKey) =>
    void act.run(async () => {
      await client(p.mode).delete('/api/v1/api-keys/{key_id}', { params: { path: { key_id: k.id } } });
      list.reload();
    });

  const shown = pageOf(list.data?.apiKeys ?? [], page);
  return (
    <Page title="API keys" intro={`Keys for ${p.mode} mode. A secret is shown once, when it is made.`}>
      {secret && <Reveal secret={secret.value} what={secret.what} onDone={() => setSecret(null)} />}
      <form class="inline" onSubmit={create} aria-label="Create an API key">
        <label>
          Name{' '}
          <input
            value={name}
            required
            maxLength={100}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Permission{' '}
          <select value={permission} onChange={(e) => setPermission((e.target as HTMLSelectElement).value)}>
            {PERMISSIONS.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </label>
        <button class="primary" disabled={act.busy}>
          Create key
        </button>
      </form>
      <ErrorNote error={act.error} />
      <ErrorNote error={list.error} />
      <table>
        <caption>API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Status</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.items.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.keyPrefix}</code>
              </td>
              <td>
                <Status value={k.status} />
              </td>
              <td>{when(k.lastUsedAt)}</td>
              <td class="row-actions">
                <button
                  type="button"
                  aria-expanded={usageOf === k.id}
                  onClick={() => setUsageOf(usageOf === k.id ? null : k.id)}
                >
                  Usage<span class="sr-only"> of {k.name}</span>
                </button>
                {k.status === 'active' && (
                  <>
                    <ConfirmButton
                      label="Rotate"
                      title={`Rotate “${k.name}”?`}
                      body="A new secret is made and shown once; the old one stops working after the overlap the API allows."
                      onConfirm={() => rotate(k)}
                    />
                    <ConfirmButton
                      label="Revoke"
                      danger
                      title={`Revoke “${k.name}”?`}
                      body="Every request with this key is refused from now on. This cannot be undone."
                      onConfirm={() => revoke(k)}
                    />
                  </>
                )}
                {usageOf === k.id && <Usage mode={p.mode} keyId={k.id} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.apiKeys.length === 0 && <p>No key yet in {p.mode} mode.</p>}
      <Pager label="API keys" page={page} totalPages={shown.totalPages} onPage={setPage} />
    </Page>
  );
}
