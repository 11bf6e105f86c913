// The issuer profile: the name verify pages show for the brand, and the domain proof that lets
// them show it as verified, with what to do when it fails and a re-check.
import { useEffect, useState } from 'preact/hooks';
import { HallmarkError } from '@hallmark/client';
import { client, type PageProps } from '../api';
import { ErrorNote, Notice, Page, useAction, useLoad, when } from '../ui';

export default function Profile(p: PageProps) {
  const profile = useLoad(
    () =>
      client(p.mode)
        .get('/api/v1/enterprise/profile')
        .catch((err: unknown) => {
          if (err instanceof HallmarkError && err.status === 404) return null;
          throw err;
        }),
    [p.mode],
  );
  const [form, setForm] = useState({ displayName: '', website: '', logoUrl: '' });
  const act = useAction();
  useEffect(() => {
    const d = profile.data;
    if (d) setForm({ displayName: d.displayName, website: d.website, logoUrl: d.logoUrl ?? '' });
  }, [profile.data]);
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      // PUT has no shortcut on the client: its generated client throws the same errors.
      await client(p.mode).api.PUT('/api/v1/enterprise/profile', {
        body: { displayName: form.displayName, website: form.website, logoUrl: form.logoUrl || null },
      });
      profile.reload();
    });
  };
  const recheck = () =>
    void act.run(async () => {
      await client(p.mode).post('/api/v1/enterprise/profile/domain-check');
      profile.reload();
    });
  const field = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  const d = profile.data;
  return (
    <Page
      title="Issuer profile"
      intro="How verify pages name your brand, and the proof that your domain is yours."
    >
      <ErrorNote error={profile.error} />
      {d === null && <Notice>No profile yet: verify pages say “Issuer not verified”. Set one below.</Notice>}
      {d && (
        <section class="panel" aria-labelledby="domain-title">
          <h2 id="domain-title">Domain proof: {d.domain.host}</h2>
          <p>
            {d.domain.status === 'verified' ? (
              <span class="good">Verified</span>
            ) : (
              <span class="bad">Not verified</span>
            )}{' '}
            <small>checked {when(d.domain.checkedAt)}</small>
          </p>
          {d.domain.detail && <p>{d.domain.detail}</p>}
          {d.domain.status !== 'verified' && (
            <p>
              To fix it, serve <code>https://{d.domain.host}/.well-known/hallmark-issuer.json</code> with{' '}
              <code>{`{"enterpriseId": "${d.enterpriseId}"}`}</code>, then check again.
            </p>
          )}
          <button type="button" onClick={recheck} disabled={act.busy}>
            Check the domain again
          </button>
        </section>
      )}
      <form onSubmit={save} aria-label="Issuer profile" class="stack">
        <label>
          Display name{' '}
          <input value={form.displayName} required maxLength={100} onInput={field('displayName')} />
        </label>
        <label>
          Website{' '}
          <input
            type="url"
            value={form.website}
            required
            placeholder="https://your.brand"
            onInput={field('website')}
          />
        </label>
        <label>
          Logo URL (optional) <input type="url" value={form.logoUrl} onInput={field('logoUrl')} />
        </label>
        <button class="primary" disabled={act.busy}>
          Save profile
        </button>
      </form>
      <ErrorNote error={act.error} />
    </Page>
  );
}
