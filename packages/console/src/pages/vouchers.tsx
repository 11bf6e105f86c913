// Discount vouchers: the list (paged, by status), create, deactivate or reactivate, delete
// (confirmed).
import { useState } from 'preact/hooks';
import { client, type PageProps } from '../api';
import { ConfirmButton, ErrorNote, Page, Pager, Status, useAction, useLoad, when } from '../ui';

type StatusFilter = '' | 'active' | 'inactive' | 'expired' | 'used';

export default function Vouchers(p: PageProps) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<StatusFilter>('');
  const [code, setCode] = useState('');
  const [type, setType] = useState<'percentage' | 'fixed_amount'>('percentage');
  const [value, setValue] = useState('10');
  const act = useAction();
  const list = useLoad(
    () =>
      client(p.mode).get('/api/v1/vouchers', {
        params: { query: { page, limit: 20, ...(status ? { status } : {}) } },
      }),
    [p.mode, page, status],
  );
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await client(p.mode).post('/api/v1/vouchers', {
        body: { code, type, value: Number(value), ...(type === 'fixed_amount' ? { currency: 'EUR' } : {}) },
      });
      setCode('');
      list.reload();
    });
  };
  const setActive = (id: string, active: boolean) =>
    void act.run(async () => {
      await client(p.mode).patch('/api/v1/vouchers/{voucher_id}', {
        params: { path: { voucher_id: id } },
        body: { status: active ? 'active' : 'inactive' },
      });
      list.reload();
    });
  const remove = (id: string) =>
    void act.run(async () => {
      await client(p.mode).delete('/api/v1/vouchers/{voucher_id}', { params: { path: { voucher_id: id } } });
      list.reload();
    });
  return (
    <Page title="Vouchers" intro="Discount codes for your shop.">
      <form class="inline" onSubmit={create} aria-label="Create a voucher">
        <label>
          Code{' '}
          <input
            value={code}
            required
            pattern="[A-Za-z0-9_-]{3,50}"
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Type{' '}
          <select
            value={type}
            onChange={(e) => setType((e.target as HTMLSelectElement).value as typeof type)}
          >
            <option value="percentage">percentage</option>
            <option value="fixed_amount">fixed amount (EUR)</option>
          </select>
        </label>
        <label>
          Value{' '}
          <input
            type="number"
            min="0.01"
            step="0.01"
            value={value}
            required
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          />
        </label>
        <button class="primary" disabled={act.busy}>
          Create voucher
        </button>
      </form>
      <label>
        Show{' '}
        <select
          value={status}
          onChange={(e) => (setStatus((e.target as HTMLSelectElement).value as StatusFilter), setPage(1))}
        >
          <option value="">all</option>
          <option value="active">active</option>
          <option value="inactive">inactive</option>
          <option value="expired">expired</option>
          <option value="used">used</option>
        </select>
      </label>
      <ErrorNote error={act.error ?? list.error} />
      <table>
        <caption>Vouchers</caption>
        <thead>
          <tr>
            <th scope="col">Code</th>
            <th scope="col">Value</th>
            <th scope="col">Status</th>
            <th scope="col">Used</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.vouchers.map((v) => (
            <tr key={v.id}>
              <td>
                <code>{v.code}</code>
              </td>
              <td>{v.type === 'percentage' ? `${v.value}%` : `${v.value} ${v.currency ?? ''}`}</td>
              <td>
                <Status value={v.status} />
              </td>
              <td>
                {v.times_used}
                {v.max_uses !== null ? ` of ${v.max_uses}` : ''}
              </td>
              <td>{when(v.expires_at)}</td>
              <td class="row-actions">
                {(v.status === 'active' || v.status === 'inactive') && (
                  <button
                    type="button"
                    onClick={() => setActive(v.id, v.status !== 'active')}
                    disabled={act.busy}
                  >
                    {v.status === 'active' ? 'Deactivate' : 'Activate'}
                    <span class="sr-only"> {v.code}</span>
                  </button>
                )}
                <ConfirmButton
                  label="Delete"
                  danger
                  title={`Delete ${v.code}?`}
                  body="Customers can no longer use this code. This cannot be undone."
                  onConfirm={() => remove(v.id)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.vouchers.length === 0 && <p>No voucher here.</p>}
      <Pager
        label="Vouchers"
        page={page}
        totalPages={list.data?.pagination.total_pages ?? 1}
        onPage={setPage}
      />
    </Page>
  );
}
