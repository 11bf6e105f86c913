// Lost and stolen (docs/lost-and-stolen.md), after the report (stolen-fixture.ts): clearing
// follows the brand's policy; the brand recovers a token from a custodial wallet to a new owner
// on chain (`recovered` provenance, the report ended) and is refused for a self-custody holder;
// other tenants see nothing.
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { newId } from '@hallmark/kit';
import {
  CALL,
  chain,
  relayer,
  api,
  stolen,
  issuer,
  recipient,
  minted,
  ownedBy,
  report,
  clear,
  transferOf,
  refusal,
  outbox,
  kinds,
} from './stolen-fixture.js';

describe('clearing follows the brand policy', () => {
  it('default `brand`: the owner who reported cannot clear (403), the brand can; certificate.recovered in the outbox and transfers work again', async () => {
    const owner = recipient();
    const cert = await ownedBy(owner, 'clr-1');
    await report(owner, cert);
    expect((await stolen.getStolenPolicy({ principal: issuer }, CALL)).cleared_by).toBe('brand');
    expect(await refusal(clear(owner, cert))).toMatchObject({
      code: 'insufficient_permissions',
      httpStatus: 403,
    });
    const res = await clear(issuer, cert, 'Owner found it at home');
    expect(res.report).toMatchObject({
      clear_reason: 'Owner found it at home',
      cleared_by: { type: 'brand' },
    });
    expect(res.certificate!.stolen).toBeUndefined();
    expect(await kinds(cert)).toEqual(expect.arrayContaining(['reported_stolen', 'stolen_cleared']));
    const [event] = await outbox('certificate.recovered', cert);
    expect(event).toMatchObject({ id: cert, stolenReport: { clearReason: 'Owner found it at home' } });
    // Cleared: the certificate moves again (issuer-held certificates; this one is the owner's).
    const [free] = await minted('clr-1b');
    await report(issuer, free!);
    await clear(issuer, free!);
    expect((await transferOf(free!)).status).toBe('confirmed');
  }, 90_000);

  it('`brand_or_reporter`: the owner who reported clears; a report by the brand stays the brand’s to clear', async () => {
    const brand: Principal = { ...issuer, enterprise_id: newId('enterprise'), actor_id: newId('apiKey') };
    await stolen.setStolenPolicy({ principal: brand, cleared_by: 'brand_or_reporter' }, CALL);
    expect((await stolen.getStolenPolicy({ principal: brand }, CALL)).cleared_by).toBe('brand_or_reporter');
    expect(
      await refusal(stolen.setStolenPolicy({ principal: brand, cleared_by: 'anyone' }, CALL)),
    ).toMatchObject({
      code: 'parameter_invalid',
    });
    // Certificates of `brand`: minted by it to its holding account, then moved to the owner.
    const owner = recipient();
    const res = await api.mintBatch(
      {
        principal: brand,
        idempotency_key: 'pol-1',
        holder_address: '',
        holder_account: { kind: 'enterprise', id: '' },
        items: [{ name: 'pol-1 a' }, { name: 'pol-1 b' }],
      },
      CALL,
    );
    await relayer.processOpen();
    const [a, b] = res.certificates.map((c) => c.id);
    for (const [i, id] of [a!, b!].entries()) {
      const t = await api.transfer(
        { principal: brand, certificate_id: id, idempotency_key: `pol-1-${i}`, to_user_id: owner.actor_id },
        CALL,
      );
      expect(t.status).toBe('confirmed');
    }
    await report(owner, a!);
    expect((await clear(owner, a!)).report!.cleared_by).toEqual({ type: 'owner', id: owner.actor_id });
    await report(brand, b!);
    expect(await refusal(clear(owner, b!))).toMatchObject({ code: 'insufficient_permissions' });
  }, 90_000);
});

describe('brand recovery', () => {
  it('moves the token from the owner’s custodial wallet to a new owner on anvil with its reason: `recovered` provenance, the report ended, events in the outbox', async () => {
    const thief = recipient();
    const cert = await ownedBy(thief, 'rec-1');
    await report(issuer, cert, 'stolen', 'Police report 42');
    const rightful = recipient();
    const res = await stolen.recoverCertificate(
      {
        principal: issuer,
        certificate_id: cert,
        idempotency_key: 'rec-1',
        to_user_id: rightful.actor_id,
        reason: 'Returned to the buyer of record (police report 42)',
      },
      CALL,
    );
    expect(res.status).toBe('confirmed');
    const tokenId = (await api.getPublicCertificate({ certificate_id: cert }, CALL)).token_id!;
    expect(await chain.contract.ownerOf(tokenId)).toBe(res.to_address);
    const pub = await api.getPublicCertificate({ certificate_id: cert }, CALL);
    expect(pub.stolen).toBeUndefined();
    expect(pub.holder_address).toBe(res.to_address);
    expect(pub.provenance.at(-1)).toMatchObject({ kind: 'recovered', to: res.to_address });
    const { reports } = await stolen.listStolenReports({ principal: issuer, certificate_id: cert }, CALL);
    expect(reports[0]).toMatchObject({
      clear_reason: 'Returned to the buyer of record (police report 42)',
      recovered_to: res.to_address,
    });
    expect(await outbox('certificate.recovered', cert)).toEqual([
      expect.objectContaining({
        holderAddress: res.to_address,
        stolenReport: expect.objectContaining({ recoveredTo: res.to_address }),
      }),
    ]);
    expect(await outbox('certificate.transferred', cert)).toHaveLength(2);
    // The same key again: the same recovery, nothing sent twice.
    const again = await stolen.recoverCertificate(
      {
        principal: issuer,
        certificate_id: cert,
        idempotency_key: 'rec-1',
        to_user_id: rightful.actor_id,
        reason: 'Returned to the buyer of record (police report 42)',
      },
      CALL,
    );
    expect(again).toMatchObject({ replayed: true, status: 'confirmed' });
  }, 90_000);

  it('refuses a self-custody holder plainly, and the owner may not recover', async () => {
    const [cert] = await minted('rec-2', 1, anvilWallet(7).address);
    expect(
      await refusal(
        stolen.recoverCertificate(
          {
            principal: issuer,
            certificate_id: cert!,
            idempotency_key: 'rec-2',
            to_address: anvilWallet(8).address,
            reason: 'x',
          },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('self-custody wallet') });
    const owner = recipient();
    const owned = await ownedBy(owner, 'rec-3');
    expect(
      await refusal(
        stolen.recoverCertificate(
          {
            principal: owner,
            certificate_id: owned,
            idempotency_key: 'rec-3',
            to_address: anvilWallet(8).address,
            reason: 'mine',
          },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'insufficient_permissions' });
  }, 90_000);
});

describe('tenant isolation', () => {
  it('another enterprise’s key (or the other mode) cannot report, clear, list or recover: answered as an unknown certificate', async () => {
    const [cert] = await minted('iso-1');
    const other: Principal = { ...issuer, enterprise_id: newId('enterprise'), actor_id: newId('apiKey') };
    const testMode: Principal = { ...issuer, livemode: false };
    for (const p of [other, testMode]) {
      expect(await refusal(report(p, cert!))).toMatchObject({ code: 'resource_not_found' });
    }
    await report(issuer, cert!);
    for (const p of [other, testMode]) {
      expect(await refusal(clear(p, cert!))).toMatchObject({ code: 'resource_not_found' });
      expect(
        await refusal(stolen.listStolenReports({ principal: p, certificate_id: cert! }, CALL)),
      ).toMatchObject({
        code: 'resource_not_found',
      });
      expect(
        await refusal(
          stolen.recoverCertificate(
            {
              principal: p,
              certificate_id: cert!,
              idempotency_key: 'iso',
              to_address: anvilWallet(8).address,
              reason: 'x',
            },
            CALL,
          ),
        ),
      ).toMatchObject({ code: 'resource_not_found' });
    }
    // Another enterprise's policy is its own.
    await stolen.setStolenPolicy({ principal: other, cleared_by: 'brand_or_reporter' }, CALL);
    expect((await stolen.getStolenPolicy({ principal: issuer }, CALL)).cleared_by).toBe('brand');
    expect((await api.getPublicCertificate({ certificate_id: cert! }, CALL)).stolen).toBeDefined();
  }, 60_000);
});
