// Bulk: drop a CSV and the ZIP of its images (or pick them), with the template to start from;
// the upload shows its progress (XHR through the client's `fetch`), then the job opens with
// its live progress and row errors (bulk-job.tsx). Below, every job, paged.
import { useState } from 'preact/hooks';
import { client, saveResponse, xhrSend, type PageProps } from '../api';
import { ErrorNote, Page, Pager, Status, useAction, useLoad, when } from '../ui';
import { Job } from './bulk-job';

export default function Bulk(p: PageProps) {
  const params = new URLSearchParams(location.search);
  const [jobId, setJobId] = useState<string | null>(params.get('job'));
  const [csv, setCsv] = useState<File | null>(null);
  const [zip, setZip] = useState<File | null>(null);
  const [sent, setSent] = useState<number | null>(null);
  const [over, setOver] = useState(false);
  const [page, setPage] = useState(1);
  const act = useAction();
  const jobs = useLoad(
    () => client(p.mode).get('/api/bulk-mint', { params: { query: { page, limit: 10 } } }),
    [p.mode, page, jobId],
  );

  const take = (files: FileList | null) => {
    for (const f of Array.from(files ?? [])) {
      if (/\.csv$/i.test(f.name) || f.type === 'text/csv') setCsv(f);
      else if (/\.zip$/i.test(f.name) || f.type.includes('zip')) setZip(f);
    }
  };
  const open = (id: string) => {
    setJobId(id);
    history.replaceState(null, '', `/console/bulk?job=${id}`);
  };
  const upload = (e: Event) => {
    e.preventDefault();
    if (!csv) return;
    const form = new FormData();
    form.append('metadata', csv, csv.name);
    if (zip) form.append('images', zip, zip.name);
    setSent(0);
    void act.run(async () => {
      const hm = client(
        p.mode,
        xhrSend((n, total) => setSent(total ? Math.round((n / total) * 100) : 0)),
      );
      const res = await hm.fetch('/api/bulk-mint', { method: 'POST', body: form });
      const body = (await res.json()) as { data: { jobId: string } };
      setCsv(null);
      setZip(null);
      (e.target as HTMLFormElement).reset();
      open(body.data.jobId);
    });
  };
  const template = () =>
    void act.run(async () =>
      saveResponse(await client(p.mode).fetch('/api/bulk-mint/template/csv'), 'hallmark-bulk-template.csv'),
    );

  return (
    <Page title="Bulk" intro="Mint a launch's certificates from a CSV and a ZIP of images.">
      <form onSubmit={upload} aria-label="Upload a bulk job">
        <div
          class={`drop ${over ? 'over' : ''}`}
          onDragOver={(e) => (e.preventDefault(), setOver(true))}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => (e.preventDefault(), setOver(false), take(e.dataTransfer?.files ?? null))}
        >
          <p>Drop the CSV and the images ZIP here, or choose them:</p>
          <label>
            CSV file{' '}
            <input
              type="file"
              accept=".csv,text/csv"
              onChange={(e) => take((e.target as HTMLInputElement).files)}
            />
          </label>
          <label>
            Images ZIP (optional){' '}
            <input
              type="file"
              accept=".zip,application/zip"
              onChange={(e) => take((e.target as HTMLInputElement).files)}
            />
          </label>
          <p aria-live="polite">
            {csv ? `CSV: ${csv.name}` : 'No CSV yet.'} {zip ? `ZIP: ${zip.name}` : ''}
          </p>
        </div>
        <div class="actions">
          <button type="button" onClick={template}>
            Download the CSV template
          </button>
          <button class="primary" disabled={!csv || act.busy}>
            Upload and start
          </button>
        </div>
        {sent !== null && act.busy && (
          <progress max={100} value={sent} aria-label="Upload progress">
            {sent}%
          </progress>
        )}
        <ErrorNote error={act.error} />
      </form>
      {jobId && <Job key={jobId} mode={p.mode} jobId={jobId} onDone={jobs.reload} />}
      <ErrorNote error={jobs.error} />
      <table>
        <caption>Bulk jobs</caption>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Status</th>
            <th scope="col">Rows</th>
            <th scope="col">Failed</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {jobs.data?.data.jobs.map((j) => (
            <tr key={j.jobId}>
              <td>
                <button type="button" class="link" onClick={() => open(j.jobId)}>
                  {j.jobId}
                </button>
              </td>
              <td>
                <Status value={j.status} />
              </td>
              <td>
                {j.processedCount}/{j.totalCount}
              </td>
              <td>{j.failedCount}</td>
              <td>{when(j.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {jobs.data && jobs.data.data.jobs.length === 0 && <p>No job yet in {p.mode} mode.</p>}
      <Pager
        label="Bulk jobs"
        page={page}
        totalPages={jobs.data?.data.pagination.totalPages ?? 1}
        onPage={setPage}
      />
    </Page>
  );
}
