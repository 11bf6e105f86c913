// Lost and stolen (docs/lost-and-stolen.md) on a real PostgreSQL and a real anvil
// (stolen-fixture.ts): the brand or the owner reports a certificate stolen or lost; while the
// report is open every hand-over path is refused 409 `certificate_reported_stolen` (Transfer,
// gift create and claim, certificate voucher create and claim, the guard the resale flow calls);
// the public read carries the flag; every change leaves its event in the outbox in the same
// transaction.
import { describe, expect, it } from '@jest/globals';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { assertCertificateNotReportedStolen } from '../src/stolen-store.js';
import { transaction } from '@hallmark/kit';
import {
  CALL,
  pool,
  api,
  vouchers,
  giftService,
  voucherStore,
  claims,
  issuer,
  recipient,
  minted,
  ownedBy,
  report,
  clear,
  voucherFor,
  giftOf,
  transferOf,
  refusal,
  reportedStolen,
  outbox,
  kinds,
} from './stolen-fixture.js';

describe('reporting a certificate stolen or lost', () => {
  it('the brand reports: stored with who, when and why; provenance and the public read carry it; certificate.reported_stolen in the outbox', async () => {
    const [cert] = await minted('rep-1');
    const res = await report(issuer, cert!, 'stolen', 'Shop window broken on 3 May');
    expect(res.report).toMatchObject({
      kind: 'stolen',
      reason: 'Shop window broken on 3 May',
      reported_by: { type: 'brand', id: issuer.actor_id },
    });
    expect(res.certificate!.stolen).toEqual({
      kind: 'stolen',
      reported_at: res.report!.reported_at,
      reported_by: 'brand',
    });
    const pub = await api.getPublicCertificate({ certificate_id: cert! }, CALL);
    expect(pub.stolen).toMatchObject({ kind: 'stolen', reported_by: 'brand' });
    expect(await kinds(cert!)).toContain('reported_stolen');
    const [event] = await outbox('certificate.reported_stolen', cert!);
    expect(event).toMatchObject({
      id: cert,
      stolenReport: { kind: 'stolen', reason: 'Shop window broken on 3 May', reportedBy: { type: 'brand' } },
    });
    // A second report while one is open: the same 409.
    expect(await refusal(report(issuer, cert!, 'lost'))).toEqual(reportedStolen);
  }, 60_000);

  it('the owner (a user session whose custodial wallet holds it) reports it lost; another user cannot', async () => {
    const owner = recipient();
    const cert = await ownedBy(owner, 'own-1');
    expect(await refusal(report(recipient(), cert))).toMatchObject({ code: 'resource_not_found' });
    const res = await report(owner, cert, 'lost', 'Left on a train');
    expect(res.report).toMatchObject({ kind: 'lost', reported_by: { type: 'owner', id: owner.actor_id } });
    expect(await kinds(cert)).toContain('reported_lost');
  }, 60_000);

  it('refuses a missing reason or an unknown kind before writing anything', async () => {
    const [cert] = await minted('rep-bad');
    expect(await refusal(report(issuer, cert!, 'stolen', '  '))).toMatchObject({
      code: 'parameter_missing',
      param: 'reason',
    });
    expect(await refusal(report(issuer, cert!, 'misplaced'))).toMatchObject({
      code: 'parameter_invalid',
      param: 'kind',
    });
    expect((await api.getPublicCertificate({ certificate_id: cert! }, CALL)).stolen).toBeUndefined();
  }, 60_000);
});

describe('while reported stolen every hand-over is refused', () => {
  it('Transfer, gift create, voucher create and the resale guard: 409 certificate_reported_stolen, nothing recorded', async () => {
    const [cert] = await minted('blk-1');
    await report(issuer, cert!);
    expect(await refusal(transferOf(cert!))).toEqual(reportedStolen);
    expect(await refusal(giftOf(cert!))).toEqual(
      expect.objectContaining({ code: 'certificate_reported_stolen', param: 'certificateId' }),
    );
    expect(await refusal(voucherFor(cert!))).toEqual(reportedStolen);
    expect(
      await refusal(
        transaction(pool, (tx) =>
          assertCertificateNotReportedStolen(tx, cert!, { doing: 'it cannot be resold' }),
        ),
      ),
    ).toEqual(
      expect.objectContaining({
        code: 'certificate_reported_stolen',
        message: expect.stringContaining('it cannot be resold'),
      }),
    );
    const { rows } = await pool.query(
      `SELECT (SELECT count(*) FROM certificate_transfers WHERE certificate_id = $1)::int AS transfers,
              (SELECT count(*) FROM gifts WHERE certificate_id = $1)::int AS gifts,
              (SELECT count(*) FROM certificate_vouchers WHERE certificate_id = $1)::int AS vouchers,
              (SELECT handover_kind FROM certificates WHERE id = $1) AS hold`,
      [cert],
    );
    expect(rows[0]).toEqual({ transfers: 0, gifts: 0, vouchers: 0, hold: null });
  }, 60_000);

  it('a voucher and a gift made before the report cannot be claimed while it is open; after clearing, both can proceed', async () => {
    const [a, b] = await minted('blk-2', 2);
    const [v] = (await voucherFor(a!)).vouchers;
    const { claim_token } = await giftOf(b!);
    await report(issuer, a!);
    await report(issuer, b!);
    expect(await refusal(vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL))).toEqual(
      expect.objectContaining({ code: 'certificate_reported_stolen', param: 'voucher_id' }),
    );
    expect(await refusal(giftService.claim(recipient(), claim_token, 0))).toEqual(
      expect.objectContaining({ code: 'certificate_reported_stolen', param: 'token' }),
    );
    // Neither was consumed: the voucher is still claimable, the gift still pending.
    expect((await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL)).voucher!.status).toBe('available');
    expect((await giftService.view(claim_token)).gift.status).toBe('pending');
    await clear(issuer, a!);
    const claimed = await vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL);
    expect(claimed).toMatchObject({ transfer_status: 'confirmed', voucher: { status: 'claimed' } });
  }, 90_000);
  it('a voucher claim recorded before the report, whose transfer had not started, is undone by the repair pass (claim_reverted), not retried for ever', async () => {
    const [cert] = await minted('blk-3');
    const [v] = (await voucherFor(cert!)).vouchers;
    const claimant = recipient();
    await voucherStore.claims.claim(
      v!.id,
      {
        userId: claimant.actor_id,
        enterpriseId: claimant.enterprise_id,
        email: null,
        toAddress: anvilWallet(9).address,
      },
      async () => true,
    );
    await report(issuer, cert!);
    // As if the process died between the claim and its transfer (the repair pass waits 10 s).
    await pool.query(
      "UPDATE certificate_vouchers SET claimed_at = now() - interval '1 minute' WHERE id = $1",
      [v!.id],
    );
    await claims.repairPass();
    expect((await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL)).voucher!.status).toBe('available');
    expect(await kinds(cert!)).toEqual(
      expect.arrayContaining(['claimed', 'reported_stolen', 'claim_reverted']),
    );
    const { rows } = await pool.query(
      'SELECT count(*)::int AS n FROM certificate_transfers WHERE certificate_id = $1',
      [cert],
    );
    expect(rows[0].n).toBe(0);
  }, 60_000);
});
