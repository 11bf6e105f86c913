// Resale (docs/resale.md) on a real PostgreSQL and a real anvil (resale-fixture.ts): an owner
// (a user session proving an e-mail, whose custodial wallet holds the certificate) resells to a
// buyer with no wallet and the token moves on chain with provenance `resold`; the brand's
// approval policy (approve, refuse with a reason); one pending hand-over across gift and resale;
// tenants apart.
import { describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { Wallet } from 'ethers';
import {
  CALL,
  pool,
  chain,
  relayer,
  api,
  gifts,
  giftService,
  steps,
  resale,
  ownership,
  issuer,
  ownerOf,
  SELLER_EMAIL,
  ownedBy,
  startResale,
  linkOf,
  buyerClaims,
  refusal,
  eventsOf,
  holdOf,
  brandKey,
  setPolicy,
} from './resale-fixture.js';

describe('resale to a buyer with no wallet', () => {
  it('the owner resells; the buyer claims; the token moves on chain to the buyer’s new custodial wallet, provenance resold, started and completed events', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'rs-1');
    const r = await startResale(owner, cert.id);
    expect(r).toMatchObject({
      status: 'pending',
      seller_address: cert.wallet,
      certificate_id: cert.id,
      token_id: Number(cert.tokenId),
    });
    expect(r.approval).toBeUndefined();
    // The claim page's read says it is a resale, so the buyer is not told of a gift.
    expect((await gifts.getGiftByToken({ token: await linkOf(r.id) }, CALL)).kind).toBe('resale');
    const buyer = ownerOf();
    await buyerClaims(r.id, buyer);
    const buyerWallet = await api.ensureWallet(
      { principal: buyer, owner: { kind: 'user', id: buyer.actor_id } },
      CALL,
    );
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(buyerWallet.address);
    const read = await api.getCertificate({ principal: issuer, certificate_id: cert.id }, CALL);
    expect(read.holder_address).toBe(buyerWallet.address);
    expect(read.provenance.map((p) => p.kind)).toEqual(
      expect.arrayContaining(['minted', 'transferred', 'resold']),
    );
    const resold = read.provenance.find((p) => p.kind === 'resold')!;
    expect(resold).toMatchObject({ from: cert.wallet, to: buyerWallet.address });
    expect((await resale.getResale({ principal: owner, resale_id: r.id }, CALL)).status).toBe('claimed');
    expect(await eventsOf(r.id)).toEqual([
      { type: 'certificate.resale_started', enterprise_id: issuer.enterprise_id },
      { type: 'certificate.resale_completed', enterprise_id: issuer.enterprise_id },
    ]);
    // The buyer now owns it and can resell in turn.
    expect((await startResale(buyer, cert.id, 'buyer@example.com')).status).toBe('pending');
  }, 90_000);

  it('is refused to anyone but the owner signed in by e-mail: an API key, a session proving no e-mail, the enterprise’s holding wallet, another user, another enterprise', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'rs-2');
    expect(await refusal(startResale(issuer, cert.id))).toMatchObject({ code: 'insufficient_permissions' });
    expect(await refusal(startResale(owner, cert.id, ''))).toMatchObject({
      code: 'insufficient_permissions',
    });
    expect(await refusal(startResale(ownerOf(), cert.id))).toMatchObject({ code: 'validation_failed' });
    expect(await refusal(startResale(ownerOf(newId('enterprise')), cert.id))).toMatchObject({
      code: 'resource_not_found',
    });
    // A certificate still in the brand's holding wallet is the brand's, not an owner's to resell.
    const held = await api.mintBatch(
      {
        principal: issuer,
        idempotency_key: 'rs-2-held',
        holder_address: '',
        holder_account: { kind: 'enterprise', id: '' },
        items: [{ name: 'held' }],
      },
      CALL,
    );
    await relayer.processOpen();
    const admin = { ...ownerOf(), actor_type: 'user' };
    expect(await refusal(startResale(admin, held.certificates[0]!.id))).toMatchObject({
      code: 'validation_failed',
    });
    expect(
      await refusal(
        resale.createResale(
          { principal: owner, certificate_id: cert.id, buyer_email: 'nope', seller_email: SELLER_EMAIL },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'buyerEmail' });
    // Nothing was created: the certificate has no hand-over.
    expect(await holdOf(cert.id)).toEqual({ handover_kind: null, handover_id: null });
  }, 90_000);
});

describe('the transfer guard', () => {
  it('a certificate reported stolen cannot be resold, exported or linked to a new buyer: 409 certificate_reported_stolen, nothing recorded', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'st-1');
    await pool.query('UPDATE certificates SET stolen = $2 WHERE id = $1', [
      cert.id,
      {
        reportId: 'rep_1',
        kind: 'stolen',
        reportedAt: '2026-11-29T00:00:00.000Z',
        reportedBy: { type: 'brand', id: 'k' },
      },
    ]);
    try {
      expect(await refusal(startResale(owner, cert.id))).toMatchObject({
        code: 'certificate_reported_stolen',
        param: 'certificateId',
        message: expect.stringContaining('it cannot be resold'),
      });
      const to = Wallet.createRandom().address;
      expect(
        await refusal(
          ownership.prepareExport({ principal: owner, certificate_id: cert.id, to_address: to }, CALL),
        ),
      ).toMatchObject({ code: 'certificate_reported_stolen' });
      expect(await holdOf(cert.id)).toEqual({ handover_kind: null, handover_id: null });
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM gifts WHERE certificate_id = $1', [
        cert.id,
      ]);
      expect(rows[0].n).toBe(0);
    } finally {
      await pool.query('UPDATE certificates SET stolen = NULL WHERE id = $1', [cert.id]);
    }
  }, 60_000);
});

describe('the brand’s approval', () => {
  it('with approval required the buyer gets nothing and cannot claim until the brand approves by API key; then the resale completes', async () => {
    await setPolicy(true);
    try {
      const owner = ownerOf();
      const cert = await ownedBy(owner, 'ap-1');
      const r = await startResale(owner, cert.id);
      expect(r).toMatchObject({ status: 'awaiting_approval', approval: 'requested' });
      expect((await eventsOf(r.id)).map((e) => e.type)).toEqual([
        'certificate.resale_started',
        'certificate.resale_approval_requested',
      ]);
      // The workflow's first step sends nothing while the brand has not decided.
      await expect(steps.notifyCreated(r.id)).resolves.toEqual([]);
      expect(await refusal(giftService.claim(ownerOf(), await linkOf(r.id), 0))).toMatchObject({
        code: 'resource_not_found',
      });
      // Not the seller (a user session), not another enterprise's key.
      const self = resale.decideResale({ principal: owner, resale_id: r.id, approve: true }, CALL);
      expect(await refusal(self)).toMatchObject({ code: 'insufficient_permissions' });
      const other = { ...issuer, enterprise_id: newId('enterprise') };
      expect(
        await refusal(resale.decideResale({ principal: other, resale_id: r.id, approve: true }, CALL)),
      ).toMatchObject({ code: 'resource_not_found' });

      const approved = await resale.decideResale(
        { principal: brandKey, resale_id: r.id, approve: true, reason: 'Serial checked' },
        CALL,
      );
      expect(approved).toMatchObject({
        status: 'pending',
        approval: 'approved',
        approval_reason: 'Serial checked',
      });
      const buyer = ownerOf();
      await buyerClaims(r.id, buyer);
      expect((await eventsOf(r.id)).map((e) => e.type)).toEqual([
        'certificate.resale_started',
        'certificate.resale_approval_requested',
        'certificate.resale_approved',
        'certificate.resale_completed',
      ]);
      const read = await api.getCertificate({ principal: issuer, certificate_id: cert.id }, CALL);
      expect(read.provenance.at(-1)!.kind).toBe('resold');
    } finally {
      await setPolicy(false);
    }
  }, 90_000);

  it('a refusal needs a reason, ends the resale (revoked, reason kept) and the owner keeps the certificate and may start again', async () => {
    await setPolicy(true);
    try {
      const owner = ownerOf();
      const cert = await ownedBy(owner, 'ap-2');
      const r = await startResale(owner, cert.id);
      expect(
        await refusal(resale.decideResale({ principal: brandKey, resale_id: r.id, approve: false }, CALL)),
      ).toMatchObject({ code: 'parameter_missing', param: 'reason' });
      const refused = await resale.decideResale(
        { principal: brandKey, resale_id: r.id, approve: false, reason: 'Reported at a repair centre' },
        CALL,
      );
      expect(refused).toMatchObject({
        status: 'revoked',
        approval: 'refused',
        approval_reason: 'Reported at a repair centre',
      });
      expect(await holdOf(cert.id)).toEqual({ handover_kind: null, handover_id: null });
      expect(await chain.contract.ownerOf(cert.tokenId)).toBe(cert.wallet);
      expect(await refusal(giftService.claim(ownerOf(), await linkOf(r.id), 0))).toMatchObject({
        code: 'resource_not_found',
      });
      // Decided once: a second decision is refused.
      expect(
        await refusal(resale.decideResale({ principal: brandKey, resale_id: r.id, approve: true }, CALL)),
      ).toMatchObject({ code: 'validation_failed' });
      expect((await eventsOf(r.id)).map((e) => e.type)).toEqual([
        'certificate.resale_started',
        'certificate.resale_approval_requested',
        'certificate.resale_refused',
      ]);
      expect((await startResale(owner, cert.id)).status).toBe('awaiting_approval');
    } finally {
      await setPolicy(false);
    }
  }, 90_000);

  it('only the brand’s API key sets the policy; it is per enterprise', async () => {
    expect(await refusal(setPolicy(true, ownerOf()))).toMatchObject({ code: 'insufficient_permissions' });
    const otherBrand = { ...issuer, enterprise_id: newId('enterprise') };
    await setPolicy(true, otherBrand);
    expect((await resale.getResalePolicy({ principal: otherBrand }, CALL)).approval_required).toBe(true);
    expect((await resale.getResalePolicy({ principal: issuer }, CALL)).approval_required).toBe(false);
  }, 30_000);
});

describe('one pending hand-over across gift and resale', () => {
  it('a pending resale refuses a gift and a transfer of its certificate; a pending gift refuses a resale; cancelling frees it', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'ho-1');
    const r = await startResale(owner, cert.id);
    const gift = gifts.createGift(
      { principal: owner, certificate_id: cert.id, recipient_email: 'x@example.com' },
      CALL,
    );
    expect(await refusal(gift)).toMatchObject({ code: 'resource_locked', httpStatus: 409 });
    const transfer = api.transfer(
      { principal: issuer, certificate_id: cert.id, idempotency_key: 'ho-1-t', to_user_id: newId('user') },
      CALL,
    );
    expect(await refusal(transfer)).toMatchObject({ code: 'resource_locked' });
    const cancelled = await resale.cancelResale({ principal: owner, resale_id: r.id }, CALL);
    expect(cancelled.status).toBe('revoked');
    expect((await eventsOf(r.id)).map((e) => e.type)).toContain('certificate.resale_cancelled');

    const g = await gifts.createGift(
      { principal: owner, certificate_id: cert.id, recipient_email: 'x@example.com' },
      CALL,
    );
    expect(await refusal(startResale(owner, cert.id))).toMatchObject({
      code: 'resource_locked',
      message: expect.stringContaining(`a pending gift (${g.gift!.id})`),
    });
  }, 90_000);

  it('a resale is not readable or cancellable by another enterprise, and a gift is not a resale', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'ho-2');
    const r = await startResale(owner, cert.id);
    const stranger = ownerOf(newId('enterprise'));
    expect(await refusal(resale.getResale({ principal: stranger, resale_id: r.id }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
    expect(await refusal(resale.cancelResale({ principal: stranger, resale_id: r.id }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
    await resale.cancelResale({ principal: owner, resale_id: r.id }, CALL);
    const g = await gifts.createGift(
      { principal: owner, certificate_id: cert.id, recipient_email: 'x@example.com' },
      CALL,
    );
    expect(await refusal(resale.getResale({ principal: owner, resale_id: g.gift!.id }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
  }, 90_000);
});
