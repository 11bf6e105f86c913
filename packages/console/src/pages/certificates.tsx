// Certificates: find them by reference number, product (name or GTIN) or owner e-mail
// (`GET /api/certificates/search`, paged), or by id, and see what a customer sees: its
// verification, its provenance, the link to its public verify page and its proof bundle (the
// file anyone can verify without Hallmark).
import { useState } from 'preact/hooks';
import type { Data, Schemas } from '@hallmark/client';
import { client, saveResponse, type PageProps } from '../api';
import { ErrorNote, Page, Pager, Status, useAction, useLoad, when } from '../ui';

type Verification = Schemas['CertificateVerification'];
type Criteria = { referenceNumber: string; product: string; email: string };
type Found = Data<'get', '/api/certificates/search'>['data'];

const NO_CRITERIA: Criteria = { referenceNumber: '', product: '', email: '' };

/** The search form and its paged results; `onOpen` shows one certificate. */
function Search({ mode, onOpen }: { mode: PageProps['mode']; onOpen: (id: string) => void }) {
  const [draft, setDraft] = useState<Criteria>(NO_CRITERIA);
  const [asked, setAsked] = useState<Criteria | null>(null);
  const [page, setPage] = useState(1);
  const found = useLoad<Found | null>(async () => {
    if (!asked) return null;
    const query = Object.fromEntries(Object.entries(asked).filter(([, v]) => v.trim() !== ''));
    return (
      await client(mode).get('/api/certificates/search', { params: { query: { ...query, page, limit: 20 } } })
    ).data;
  }, [mode, asked, page]);
  const field = (name: keyof Criteria, label: string, type = 'text') => (
    <label>
      {label}{' '}
      <input
        type={type}
        value={draft[name]}
        onInput={(e) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  const rows = found.data?.certificates ?? [];
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form
        class="inline"
        role="search"
        aria-label="Search certificates"
        onSubmit={(e) => (e.preventDefault(), setPage(1), setAsked({ ...draft }))}
      >
        {field('referenceNumber', 'Reference number')}
        {field('product', 'Product or GTIN')}
        {field('email', 'Owner e-mail', 'email')}
        <button class="primary">Search</button>
      </form>
      <ErrorNote error={found.error} />
      {found.data && (
        <table>
          <caption>
            {found.data.pagination.totalItems} certificate{found.data.pagination.totalItems === 1 ? '' : 's'}{' '}
            found, newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">Certificate</th>
              <th scope="col">Product</th>
              <th scope="col">Reference</th>
              <th scope="col">Status</th>
              <th scope="col">Issued</th>
              <th scope="col">
                <span class="sr-only">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <td>
                  <code>{c.id}</code>
                </td>
                <td>
                  {c.name}
                  {c.gtin ? ` (GTIN ${c.gtin}${c.serial ? `, serial ${c.serial}` : ''})` : ''}
                </td>
                <td>{c.referenceNumber ? <code>{c.referenceNumber}</code> : '—'}</td>
                <td>
                  <Status value={c.status} />
                </td>
                <td>{when(c.createdAt)}</td>
                <td>
                  <button type="button" onClick={() => onOpen(c.id)}>
                    Open<span class="sr-only"> {c.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        label="Certificates found"
        page={page}
        totalPages={found.data?.pagination.totalPages ?? 1}
        onPage={setPage}
      />
    </section>
  );
}

export default function Certificates(p: PageProps) {
  const [id, setId] = useState(new URLSearchParams(location.search).get('id') ?? '');
  const [cert, setCert] = useState<Verification | null>(null);
  const act = useAction();
  const look = (e?: Event, which = id) => {
    e?.preventDefault();
    void act.run(async () => {
      setCert(null);
      const v = await client(p.mode).get('/api/certificate/verify/{id}', {
        params: { path: { id: which.trim() } },
      });
      setCert(v);
      history.replaceState(null, '', `/console/certificates?id=${encodeURIComponent(which.trim())}`);
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
      intro="Answer “is my certificate real?”: find it by the reference number on its card, the product or the owner’s e-mail, or by its id (cert_…)."
    >
      <Search mode={p.mode} onOpen={(found) => (setId(found), look(undefined, found))} />
      <h2>By id</h2>
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
