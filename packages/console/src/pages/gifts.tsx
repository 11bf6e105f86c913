// Gifts: send a certificate to someone by e-mail, and for each gift sent from this browser
// (the API has no list of gifts: their transfer ids are remembered here, per mode) its
// state, resend and revoke (confirmed). Any gift can also be opened by its transfer id.
import { useState } from 'preact/hooks';
import { client, type PageProps } from '../api';
import {
  ConfirmButton,
  ErrorNote,
  Notice,
  Page,
  Pager,
  Status,
  pageOf,
  useAction,
  useLoad,
  when,
} from '../ui';

const remembered = (mode: string): string[] =>
  JSON.parse(localStorage.getItem(`hallmark.console.gifts.${mode}`) ?? '[]');
const remember = (mode: string, id: string) =>
  localStorage.setItem(
    `hallmark.console.gifts.${mode}`,
    JSON.stringify([id, ...remembered(mode).filter((x) => x !== id)].slice(0, 200)),
  );

function Gift({ mode, id, onChange }: { mode: PageProps['mode']; id: string; onChange: () => void }) {
  const g = useLoad(
    () => client(mode).get('/api/certificates/gift/{transferId}', { params: { path: { transferId: id } } }),
    [id],
  );
  const act = useAction();
  const [note, setNote] = useState('');
  const path = { transferId: id };
  const gift = g.data?.gift;
  return (
    <tr>
      <td>
        <code>{id}</code>
      </td>
      <td>{gift ? <code>{gift.certificateId}</code> : '…'}</td>
      <td>{gift ? <Status value={gift.status} /> : <ErrorNote error={g.error} />}</td>
      <td>
        {gift ? `${gift.notification}${gift.notificationError ? `: ${gift.notificationError}` : ''}` : ''}
      </td>
      <td>{when(gift?.expiresAt)}</td>
      <td class="row-actions">
        {gift?.status === 'pending' && (
          <>
            <button
              type="button"
              disabled={act.busy}
              onClick={() =>
                void act.run(async () => {
                  const r = await client(mode).post('/api/certificates/gift/resend/{transferId}', {
                    params: { path },
                  });
                  setNote(`Sent again by ${r.method}.`);
                  g.reload();
                })
              }
            >
              Resend<span class="sr-only"> gift {id}</span>
            </button>
            <ConfirmButton
              label="Revoke"
              danger
              title="Revoke this gift?"
              body="The claim link stops working and the certificate stays yours. This cannot be undone."
              onConfirm={() =>
                void act.run(async () => {
                  await client(mode).post('/api/certificates/gift/revoke/{transferId}', { params: { path } });
                  g.reload();
                  onChange();
                })
              }
            />
          </>
        )}
        {note && <Notice>{note}</Notice>}
        <ErrorNote error={act.error} />
      </td>
    </tr>
  );
}

export default function Gifts(p: PageProps) {
  const [ids, setIds] = useState(remembered(p.mode));
  const [page, setPage] = useState(1);
  const [certificateId, setCertificateId] = useState('');
  const [email, setEmail] = useState('');
  const [open, setOpen] = useState('');
  const act = useAction();
  const add = (id: string) => {
    remember(p.mode, id);
    setIds(remembered(p.mode));
    setPage(1);
  };
  const send = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = await client(p.mode).post('/api/certificates/gift/create', {
        body: { certificateId: certificateId.trim(), recipientEmail: email.trim() },
      });
      add(r.transferId);
      setCertificateId('');
      setEmail('');
    });
  };
  const shown = pageOf(ids, page);
  return (
    <Page title="Gifts" intro="Send a certificate to its new owner; resend the e-mail or take the gift back.">
      <form class="inline" onSubmit={send} aria-label="Send a gift">
        <label>
          Certificate id{' '}
          <input
            value={certificateId}
            required
            onInput={(e) => setCertificateId((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Recipient e-mail{' '}
          <input
            type="email"
            value={email}
            required
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
        <button class="primary" disabled={act.busy}>
          Send gift
        </button>
      </form>
      <form
        class="inline"
        onSubmit={(e) => (e.preventDefault(), open.trim() && add(open.trim()), setOpen(''))}
        aria-label="Open a gift"
      >
        <label>
          Transfer id <input value={open} onInput={(e) => setOpen((e.target as HTMLInputElement).value)} />
        </label>
        <button>Open gift</button>
      </form>
      <ErrorNote error={act.error} />
      <table>
        <caption>Gifts sent from this browser</caption>
        <thead>
          <tr>
            <th scope="col">Transfer</th>
            <th scope="col">Certificate</th>
            <th scope="col">Status</th>
            <th scope="col">Notification</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.items.map((id) => (
            <Gift key={id} mode={p.mode} id={id} onChange={() => setIds(remembered(p.mode))} />
          ))}
        </tbody>
      </table>
      {ids.length === 0 && <p>No gift sent from this browser yet.</p>}
      <Pager label="Gifts" page={page} totalPages={shown.totalPages} onPage={setPage} />
    </Page>
  );
}
