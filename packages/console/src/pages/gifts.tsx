// Gifts: send a certificate to someone by e-mail; the enterprise's gifts (paged, by status,
// `GET /api/certificates/gifts`) with each one's state and notification, resend and revoke
// (confirmed).
import { useState } from 'preact/hooks';
import type { Data } from '@hallmark/client';
import { client, type PageProps } from '../api';
import { ConfirmButton, ErrorNote, Notice, Page, Pager, Status, useAction, useLoad, when } from '../ui';

type GiftRow = Data<'get', '/api/certificates/gifts'>['data']['gifts'][number];
type StatusFilter = '' | 'pending' | 'claiming' | 'claimed' | 'revoked';

function Gift({ mode, gift, onChange }: { mode: PageProps['mode']; gift: GiftRow; onChange: () => void }) {
  const act = useAction();
  const [note, setNote] = useState('');
  const id = gift.transferId;
  const path = { transferId: id };
  return (
    <tr>
      <td>
        <code>{id}</code>
      </td>
      <td>
        <code>{gift.certificateId}</code>
      </td>
      <td>
        <Status value={gift.status} />
      </td>
      <td>{`${gift.notification ?? '—'}${gift.notificationError ? `: ${gift.notificationError}` : ''}`}</td>
      <td>{when(gift.createdAt)}</td>
      <td>{when(gift.expiresAt)}</td>
      <td class="row-actions">
        {gift.status === 'pending' && (
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
                  onChange();
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
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<StatusFilter>('');
  const [certificateId, setCertificateId] = useState('');
  const [email, setEmail] = useState('');
  const act = useAction();
  const list = useLoad(
    () =>
      client(p.mode).get('/api/certificates/gifts', {
        params: { query: { page, limit: 20, ...(status ? { status } : {}) } },
      }),
    [p.mode, page, status],
  );
  const send = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await client(p.mode).post('/api/certificates/gift/create', {
        body: { certificateId: certificateId.trim(), recipientEmail: email.trim() },
      });
      setCertificateId('');
      setEmail('');
      setPage(1);
      list.reload();
    });
  };
  const gifts = list.data?.data.gifts ?? [];
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
      <ErrorNote error={act.error} />
      <label>
        Status{' '}
        <select
          value={status}
          onChange={(e) => (setStatus((e.target as HTMLSelectElement).value as StatusFilter), setPage(1))}
        >
          <option value="">all</option>
          <option value="pending">pending</option>
          <option value="claiming">claiming</option>
          <option value="claimed">claimed</option>
          <option value="revoked">revoked</option>
        </select>
      </label>
      <ErrorNote error={list.error} />
      <table>
        <caption>Gifts, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Transfer</th>
            <th scope="col">Certificate</th>
            <th scope="col">Status</th>
            <th scope="col">Notification</th>
            <th scope="col">Sent</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {gifts.map((g) => (
            <Gift key={g.transferId} mode={p.mode} gift={g} onChange={list.reload} />
          ))}
        </tbody>
      </table>
      {list.data && gifts.length === 0 && <p>No gift{status ? ` ${status}` : ''} yet.</p>}
      <Pager
        label="Gifts"
        page={page}
        totalPages={list.data?.data.pagination.totalPages ?? 1}
        onPage={setPage}
      />
    </Page>
  );
}
