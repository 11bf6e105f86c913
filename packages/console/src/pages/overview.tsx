// Overview: what needs attention now. Jobs in flight (the bulk list, queued and processing),
// failing webhooks (enterprise subscriptions the API marks failing or disabled, and endpoints
// with failed deliveries), the relayer (minting) health, and each active key's use in the
// last 24 h against its rate limit.
import { client, type PageProps } from '../api';
import { ErrorNote, Page, Status, useLoad, when } from '../ui';

async function jobsInFlight(p: PageProps) {
  const hm = client(p.mode);
  const [processing, queued] = await Promise.all(
    (['processing', 'queued'] as const).map((status) =>
      hm.get('/api/bulk-mint', { params: { query: { status, limit: 10, page: 1 } } }),
    ),
  );
  return [...processing!.data.jobs, ...queued!.data.jobs];
}

async function failingWebhooks(p: PageProps) {
  const hm = client(p.mode);
  const [subs, endpoints] = await Promise.all([
    hm.get('/api/enterprise/webhooks'),
    hm.get('/api/v1/webhooks', { params: { query: { page: 1, limit: 10 } } as never }),
  ]);
  const failing: { id: string; url: string; why: string }[] = subs.webhooks
    .filter((w) => w.status !== 'active')
    .map((w) => ({ id: w.id, url: w.url, why: `${w.status}: ${w.lastError ?? 'deliveries failing'}` }));
  for (const w of endpoints.webhooks) {
    const failed = await hm.get('/api/v1/webhooks/{webhook_id}/deliveries', {
      params: { path: { webhook_id: w.id }, query: { status: 'failed', limit: 1, page: 1 } },
    });
    if (failed.pagination.total > 0)
      failing.push({
        id: w.id,
        url: w.url,
        why: `${failed.pagination.total} failed ${failed.pagination.total === 1 ? 'delivery' : 'deliveries'}`,
      });
  }
  return failing;
}

async function keyUsage(p: PageProps) {
  const hm = client(p.mode);
  const { apiKeys } = await hm.get('/api/v1/api-keys');
  const active = apiKeys.filter((k) => k.status === 'active').slice(0, 5);
  return Promise.all(
    active.map(async (k) => ({
      key: k,
      usage: await hm.get('/api/v1/api-keys/{key_id}/usage', {
        params: { path: { key_id: k.id }, query: { period: '24h' } },
      }),
    })),
  );
}

export default function Overview(p: PageProps) {
  const jobs = useLoad(() => jobsInFlight(p), [p.mode]);
  const hooks = useLoad(() => failingWebhooks(p), [p.mode]);
  const relayer = useLoad(() => client(p.mode).get('/api/certificate/health'), [p.mode]);
  const usage = useLoad(() => keyUsage(p), [p.mode]);
  return (
    <Page title="Overview" intro="What needs your attention now.">
      <div class="cards">
        <article class="card" aria-labelledby="ov-jobs">
          <h2 id="ov-jobs">Jobs in flight</h2>
          <ErrorNote error={jobs.error} />
          {jobs.data &&
            (jobs.data.length === 0 ? (
              <p>No bulk job is running.</p>
            ) : (
              <ul>
                {jobs.data.map((j) => (
                  <li key={j.jobId}>
                    <a
                      href={`/console/bulk?job=${j.jobId}`}
                      onClick={(e) => (e.preventDefault(), p.navigate(`/console/bulk?job=${j.jobId}`))}
                    >
                      {j.jobId}
                    </a>{' '}
                    <Status value={j.status} /> {j.processedCount}/{j.totalCount}
                  </li>
                ))}
              </ul>
            ))}
        </article>
        <article class="card" aria-labelledby="ov-hooks">
          <h2 id="ov-hooks">Failing webhooks</h2>
          <ErrorNote error={hooks.error} />
          {hooks.data &&
            (hooks.data.length === 0 ? (
              <p>Every webhook is delivering.</p>
            ) : (
              <ul>
                {hooks.data.map((w) => (
                  <li key={w.id}>
                    <a
                      href="/console/webhooks"
                      onClick={(e) => (e.preventDefault(), p.navigate('/console/webhooks'))}
                    >
                      {w.url}
                    </a>{' '}
                    <span class="bad">{w.why}</span>
                  </li>
                ))}
              </ul>
            ))}
        </article>
        <article class="card" aria-labelledby="ov-relayer">
          <h2 id="ov-relayer">Relayer</h2>
          <ErrorNote error={relayer.error} />
          {relayer.data && (
            <p>
              Minting and reading certificates: <Status value={relayer.data.status} />{' '}
              <small>checked {when(relayer.data.timestamp)}</small>
            </p>
          )}
        </article>
        <article class="card wide" aria-labelledby="ov-usage">
          <h2 id="ov-usage">Usage against limits (24 h)</h2>
          <ErrorNote error={usage.error} />
          {usage.data &&
            (usage.data.length === 0 ? (
              <p>No active API key in this mode.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Requests</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Rate limit</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.map(({ key, usage: u }) => (
                    <tr key={key.id}>
                      <td>{key.name}</td>
                      <td>{u.totalRequests}</td>
                      <td>{u.failedRequests}</td>
                      <td>{key.rateLimit}/min</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
        </article>
      </div>
    </Page>
  );
}
