// One bulk job: live progress (the client's watchJob, paced to the status-poll budget), the
// row errors in a table with an inline fix per row (PATCH the corrected cell, the same check
// as an uploaded row) and one retry for every fixed row, and the results download.
import { useEffect, useState } from 'preact/hooks';
import { downloadResults, watchJob, type JobProgress } from '@hallmark/client';
import { client, saveResponse, type Mode } from '../api';
import { ErrorNote, Notice, Pager, Status, pageOf, useAction, when } from '../ui';

const COLUMNS = [
  'name',
  'description',
  'category',
  'recipientEmail',
  'recipientName',
  'imageUrl',
  'expiryDays',
  'gtin',
  'serial',
];

/** The column a row error names first (`recipientEmail "x" is not a valid e-mail address`), if any. */
const columnOf = (error: string) => /^([A-Za-z_]\w*)\b/.exec(error)?.[1];

function RowFix({
  mode,
  jobId,
  row,
  error,
  onFixed,
}: {
  mode: Mode;
  jobId: string;
  row: number;
  error: string;
  onFixed: () => void;
}) {
  const named = columnOf(error);
  const [column, setColumn] = useState(
    named && COLUMNS.includes(named) ? named : named?.startsWith('attribute_') ? named : 'name',
  );
  const [value, setValue] = useState('');
  const [fixed, setFixed] = useState(false);
  const act = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await client(mode).patch('/api/bulk-mint/{jobId}/items/{row}', {
        params: { path: { jobId, row } },
        body: { [column]: value },
      });
      setFixed(true);
      onFixed();
    });
  };
  return (
    <tr data-row={row}>
      <td>{row}</td>
      <td>{error}</td>
      <td>
        {fixed ? (
          <span class="good">Fixed: retry to process it</span>
        ) : (
          <form class="inline compact" onSubmit={save} aria-label={`Fix row ${row}`}>
            <label>
              <span class="sr-only">Column of row {row}</span>
              <select value={column} onChange={(e) => setColumn((e.target as HTMLSelectElement).value)}>
                {[...new Set([column, ...COLUMNS])].map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
            <label>
              <span class="sr-only">New value for row {row}</span>
              <input value={value} required onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
            </label>
            <button disabled={act.busy}>Save fix</button>
            <ErrorNote error={act.error} />
          </form>
        )}
      </td>
    </tr>
  );
}

export function Job({ mode, jobId, onDone }: { mode: Mode; jobId: string; onDone: () => void }) {
  const [progress, setProgress] = useState<JobProgress | null>(null);
  const [watch, setWatch] = useState(0);
  const [failure, setFailure] = useState<unknown>(null);
  const [page, setPage] = useState(1);
  const [fixedRows, setFixedRows] = useState(0);
  const [note, setNote] = useState('');
  const act = useAction();
  useEffect(() => {
    const stop = new AbortController();
    (async () => {
      try {
        for await (const p of watchJob(client(mode), jobId, { intervalMs: 1500, signal: stop.signal })) {
          setProgress(p);
          if (p.done) onDone(); // the job list below shows it ended
        }
      } catch (err) {
        if (!stop.signal.aborted) setFailure(err);
      }
    })();
    return () => stop.abort();
  }, [jobId, watch]);

  const retry = () =>
    void act.run(async () => {
      const r = await client(mode).post('/api/bulk-mint/{jobId}/retry', { params: { path: { jobId } } });
      setNote(r.data.message);
      setFixedRows(0);
      setWatch((w) => w + 1);
    });
  const download = (type: 'csv' | 'zip') =>
    void act.run(async () => {
      const d = await downloadResults(client(mode), jobId, type);
      await saveResponse(new Response(d.body), d.filename ?? `${jobId}.${type}`);
    });

  const job = progress?.job as { errors?: { row: number; error: string }[]; createdAt?: string } | undefined;
  const errors = pageOf(job?.errors ?? [], page, 25);
  const pct = progress && progress.total ? Math.round((progress.processed / progress.total) * 100) : 0;
  return (
    <section class="panel" aria-labelledby="job-title">
      <h2 id="job-title">Job {jobId}</h2>
      <ErrorNote error={failure} />
      {progress && (
        <>
          <p>
            <Status value={progress.status} /> {progress.processed} of {progress.total} rows processed,{' '}
            <span class="good">{progress.succeeded} minted</span>,{' '}
            <span class="bad">{progress.failed} failed</span> <small>started {when(job?.createdAt)}</small>
          </p>
          <progress id="job-progress" max={100} value={pct} aria-label="Job progress">
            {pct}%
          </progress>
          {progress.done && (
            <div class="actions">
              <button type="button" onClick={() => download('csv')} disabled={act.busy}>
                Download results (CSV)
              </button>
              <button type="button" onClick={() => download('zip')} disabled={act.busy}>
                Download certificates (ZIP)
              </button>
              <button
                type="button"
                class="primary"
                onClick={retry}
                disabled={act.busy || progress.failed === 0}
              >
                Retry failed rows{fixedRows ? ` (${fixedRows} fixed)` : ''}
              </button>
            </div>
          )}
          {note && <Notice>{note}</Notice>}
          <ErrorNote error={act.error} />
          {errors.items.length > 0 && (
            <>
              <table>
                <caption>Row errors</caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Error</th>
                    <th scope="col">Fix</th>
                  </tr>
                </thead>
                <tbody>
                  {errors.items.map((e) => (
                    <RowFix
                      key={`${watch}-${e.row}`}
                      mode={mode}
                      jobId={jobId}
                      row={e.row}
                      error={e.error}
                      onFixed={() => setFixedRows((n) => n + 1)}
                    />
                  ))}
                </tbody>
              </table>
              <Pager label="Row errors" page={page} totalPages={errors.totalPages} onPage={setPage} />
            </>
          )}
        </>
      )}
    </section>
  );
}
