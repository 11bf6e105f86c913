// Proof-of-ownership links and export (docs/resale.md) on a real PostgreSQL and a real anvil
// (resale-fixture.ts): links valid, expired, revoked and after a transfer; export to the owner's
// wallet only with that wallet's EIP-712 signature, and the permit that brings it back.
import { describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { Wallet } from 'ethers';
import {
  CALL,
  pool,
  chain,
  api,
  ownership,
  issuer,
  ownerOf,
  ownedBy,
  startResale,
  buyerClaims,
  refusal,
} from './resale-fixture.js';

describe('proof-of-ownership links', () => {
  it('says owned while the owner holds it, transferred after it moved, and nothing once revoked or expired; the token is stored only hashed', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'pl-1');
    const { link, token } = await ownership.createOwnershipLink(
      { principal: owner, certificate_id: cert.id, ttl_hours: 0 },
      CALL,
    );
    const hours = (Date.parse(link!.expires_at) - Date.parse(link!.created_at)) / 3_600_000;
    expect(hours).toBeCloseTo(72, 1);
    expect(await ownership.getOwnershipProof({ token }, CALL)).toMatchObject({
      status: 'owned',
      certificate_id: cert.id,
      token_id: Number(cert.tokenId),
      holder_address: cert.wallet,
    });
    const stored = await pool.query('SELECT token_hash FROM ownership_links WHERE id = $1', [link!.id]);
    expect(stored.rows[0].token_hash).not.toContain(token);
    expect(JSON.stringify(stored.rows)).not.toContain(token);

    // Expired (the clock moved past it).
    const second = await ownership.createOwnershipLink(
      { principal: owner, certificate_id: cert.id, ttl_hours: 1 },
      CALL,
    );
    await pool.query("UPDATE ownership_links SET expires_at = now() - interval '1 second' WHERE id = $1", [
      second.link!.id,
    ]);
    const expired = await ownership.getOwnershipProof({ token: second.token }, CALL);
    expect(expired).toMatchObject({ status: 'expired' });
    expect(expired.certificate_id).toBeUndefined();

    // Revoked by its owner (idempotent); another user cannot revoke it.
    const third = await ownership.createOwnershipLink(
      { principal: owner, certificate_id: cert.id, ttl_hours: 24 },
      CALL,
    );
    expect(
      await refusal(ownership.revokeOwnershipLink({ principal: ownerOf(), link_id: third.link!.id }, CALL)),
    ).toMatchObject({ code: 'resource_not_found' });
    await ownership.revokeOwnershipLink({ principal: owner, link_id: third.link!.id }, CALL);
    await ownership.revokeOwnershipLink({ principal: owner, link_id: third.link!.id }, CALL);
    expect((await ownership.getOwnershipProof({ token: third.token }, CALL)).status).toBe('revoked');

    // Sold on: the first link now says the certificate left its holder.
    const r = await startResale(owner, cert.id);
    await buyerClaims(r.id, ownerOf());
    const after = await ownership.getOwnershipProof({ token }, CALL);
    expect(after).toMatchObject({ status: 'transferred', certificate_id: cert.id });
    expect(after.holder_address).toBeUndefined();

    expect(await refusal(ownership.getOwnershipProof({ token: 'x'.repeat(43) }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
  }, 90_000);

  it('only the owner makes one, for at most 30 days', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'pl-2');
    const make = (principal: Principal, ttl_hours: number) =>
      ownership.createOwnershipLink({ principal, certificate_id: cert.id, ttl_hours }, CALL);
    expect(await refusal(make(owner, 721))).toMatchObject({ code: 'parameter_invalid', param: 'ttlHours' });
    expect(await refusal(make(owner, -1))).toMatchObject({ code: 'parameter_invalid' });
    expect(await refusal(make(ownerOf(), 24))).toMatchObject({ code: 'validation_failed' });
    expect(await refusal(make(issuer, 24))).toMatchObject({ code: 'insufficient_permissions' });
    expect(await refusal(make(ownerOf(newId('enterprise')), 24))).toMatchObject({
      code: 'resource_not_found',
    });
    expect((await make(owner, 720)).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  }, 60_000);
});

describe('export to the owner’s own wallet and import back', () => {
  it('refuses a signature by another wallet, an expired one and one for another destination; the right one moves the token there on chain; the outside wallet’s permit brings it back', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'ex-1');
    const mine = Wallet.createRandom();
    const typed = JSON.parse(
      (
        await ownership.prepareExport(
          { principal: owner, certificate_id: cert.id, to_address: mine.address },
          CALL,
        )
      ).typed_data_json,
    );
    expect(typed.primaryType).toBe('ExportCertificate');
    const { EIP712Domain: _, ...types } = typed.types;
    const sign = (w: { signTypedData: Wallet['signTypedData'] }, message = typed.message) =>
      w.signTypedData(typed.domain, types, message);
    const exportWith = (signature: string, to = mine.address, deadline = Number(typed.message.deadline)) =>
      ownership.exportCertificate(
        { principal: owner, certificate_id: cert.id, to_address: to, deadline, signature },
        CALL,
      );

    expect(await refusal(exportWith(await sign(Wallet.createRandom())))).toMatchObject({
      code: 'validation_failed',
      param: 'signature',
    });
    const other = Wallet.createRandom();
    expect(await refusal(exportWith(await sign(mine), other.address))).toMatchObject({ param: 'signature' });
    const past = Math.floor(Date.now() / 1000) - 10;
    expect(
      await refusal(
        exportWith(await sign(mine, { ...typed.message, deadline: String(past) }), mine.address, past),
      ),
    ).toMatchObject({ param: 'signature' });
    expect(await refusal(exportWith('0x1234'))).toMatchObject({ param: 'signature' });
    // Another user cannot export the owner's certificate, even with a valid signature.
    const stranger = ownership.exportCertificate(
      {
        principal: ownerOf(),
        certificate_id: cert.id,
        to_address: mine.address,
        deadline: Number(typed.message.deadline),
        signature: await sign(mine),
      },
      CALL,
    );
    expect(await refusal(stranger)).toMatchObject({ code: 'validation_failed', param: 'certificateId' });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(cert.wallet);

    const done = await exportWith(await sign(mine));
    expect(done).toMatchObject({ status: 'confirmed', to_address: mine.address, replayed: false });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(mine.address);
    const read = await api.getCertificate({ principal: issuer, certificate_id: cert.id }, CALL);
    expect(read.holder_address).toBe(mine.address);
    // Out of custody: no resale or ownership link by the former custodial owner.
    expect(await refusal(startResale(owner, cert.id))).toMatchObject({ code: 'sender_credential_missing' });

    // Import back: the outside wallet signs the contract's TransferPermit to the owner's custodial wallet.
    const permit = JSON.parse(
      (await ownership.prepareImport({ principal: owner, certificate_id: cert.id }, CALL)).typed_data_json,
    );
    expect(permit).toMatchObject({ primaryType: 'TransferPermit', message: { to: cert.wallet } });
    const { EIP712Domain: __, ...permitTypes } = permit.types;
    const importWith = (signature: string) =>
      ownership.importCertificate(
        { principal: owner, certificate_id: cert.id, deadline: Number(permit.message.deadline), signature },
        CALL,
      );
    const forged = await Wallet.createRandom().signTypedData(permit.domain, permitTypes, permit.message);
    expect(await refusal(importWith(forged))).toMatchObject({
      code: 'validation_failed',
      param: 'signature',
    });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(mine.address);
    const back = await importWith(await mine.signTypedData(permit.domain, permitTypes, permit.message));
    expect(back).toMatchObject({ status: 'confirmed', to_address: cert.wallet, replayed: false });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(cert.wallet);
    // In custody again: the owner can resell; an import of a certificate in custody is refused.
    expect(
      await refusal(ownership.prepareImport({ principal: owner, certificate_id: cert.id }, CALL)),
    ).toMatchObject({ code: 'validation_failed' });
    expect((await startResale(owner, cert.id)).status).toBe('pending');
  }, 90_000);
});
