// Certificates: look one up by its id (the reference a bulk job's results give) and see what
// a customer sees: its verification, its provenance, the link to its public verify page and
// its proof bundle (the file anyone can verify without Hallmark).
import { useState } from 'preact/hooks';
import type { Schemas } from '@hallmark/client';
import { client, saveResponse, type PageProps } from '../api';
import { ErrorNote, Page, Status, useAction, when } from '../ui';

type Verification = Schemas['CertificateVerification'];

export default function Certificates(p: PageProps) {
  const [id, setId] = useState(new URLSearchParams(location.search).get('id') ?? '');
  const [cert, setCert] = useState<Verification | null>(null);
  const act = useAction();
  const look = (e?: Event) => {
    e?.preventDefault();
    void act.run(async () => {
      setCert(null);
      const v = await client(p.mode).get('/api/certificate/verify/{id}', {
        params: { path: { id: id.trim() } },
      });
      setCert(v);
      history.replaceState(null, '', `/console/certificates?id=${encodeURIComponent(id.trim())}`);
    });
  };
  const proof = () =>
    void act.run(async () =>
      saveResponse(
        await client(p.mode).fetch(`/api/certificate/${encodeURIComponent(cert!.id)}/proof`),
        `hallmark-proof-${cert!.id}.json`,
      ),
    );
  return (
    <Page
      title="Certificates"
      intro="Answer “is my certificate real?”: look one up by its id (cert_…), as listed in a bulk job's results."
    >
      <form class="inline" role="search" onSubmit={look} aria-label="Find a certificate">
        <label>
          Certificate id{' '}
          <input
            value={id}
            required
            pattern="cert_[0-9A-Za-z]+"
            onInput={(e) => setId((e.target as HTMLInputElement).value)}
          />
        </label>
        <button class="primary" disabled={act.busy}>
          Look up
        </button>
      </form>
      <ErrorNote error={act.error} />
      {cert && (
        <article class="panel" aria-labelledby="cert-title">
          <h2 id="cert-title">{cert.name}</h2>
          <p>
            {cert.verified ? <span class="good">Verified</span> : <span class="bad">Not verified</span>} ·{' '}
            <Status value={cert.status} /> {cert.burned && <span class="bad">burned</span>}{' '}
            {cert.stolen && (
              <span class="bad">reported {String((cert.stolen as { kind?: string }).kind ?? 'stolen')}</span>
            )}
          </p>
          <div class="actions">
            <a class="button" href={`/verify/${encodeURIComponent(cert.id)}`} target="_blank" rel="noopener">
              Open its verify page
            </a>
            <button type="button" onClick={proof} disabled={act.busy}>
              Download its proof bundle
            </button>
          </div>
          <h3>Checks</h3>
          <ul>
            {cert.checks.map((c) => (
              <li key={c.name}>
                {c.passed ? '✓' : '✗'} {c.name}: {c.detail}
              </li>
            ))}
          </ul>
          <h3>Provenance</h3>
          <table>
            <caption class="sr-only">Provenance</caption>
            <thead>
              <tr>
                <th scope="col">What</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {cert.provenance.map((e, i) => (
                <tr key={i}>
                  <td>{e.kind}</td>
                  <td>
                    <code>{e.from ?? '—'}</code>
                  </td>
                  <td>
                    <code>{e.to ?? '—'}</code>
                  </td>
                  <td>{when(e.at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </article>
      )}
    </Page>
  );
}
