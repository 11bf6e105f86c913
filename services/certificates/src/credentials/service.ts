// The credentials use cases: the issuing pass (the worker's), the public documents (credential,
// proof bundle, hosted DID document, status list) and the tenant's issuer identity and key
// rotation. Lock order and the burn argument: ./store.ts.
import { randomUUID } from 'node:crypto';
import { HallmarkError, notFound, transaction, type Logger, type Pool } from '@hallmark/kit';
import { isId } from '@hallmark/kit/ids';
import { buildBatchTree } from '../chain/batch-tree.js';
import type { Scope } from '../domain/certificate.js';
import { findIssuer } from '../issuers/store.js';
import type { CertificatesStore } from '../store.js';
import type { VerifyStore } from '../verify/store.js';
import { buildBundle, type ProofBundle } from './domain/bundle.js';
import { buildCredential } from './domain/credential.js';
import {
  didDocument,
  domainDid,
  domainDidUrl,
  hostedDid,
  hostedDidUrl,
  issuingDid,
  type DidDocument,
  type IssuerPublicKey,
} from './domain/did.js';
import { generateKeyMaterial, signCredential } from './domain/proof.js';
import { buildStatusListCredential } from './domain/status-list.js';
import type { IssuerKeyStore } from './keys-store.js';
import {
  revokeCredential,
  type CredentialStore,
  type DueCertificate,
  type StoredCredential,
} from './store.js';

export interface CredentialServiceDeps {
  pool: Pool;
  store: CredentialStore;
  keys: IssuerKeyStore;
  certificates: CertificatesStore;
  reads: VerifyStore;
  publicUrl: string;
  /** The chain the certificates are minted on (credentials name it). */
  chainId: bigint | null;
  /** Certificates signed per transaction of the issuing pass. */
  batchSize?: number;
  log: Logger;
}

export interface IssuerIdentity {
  hostedDid: string;
  hostedDidUrl: string;
  hostedDocument: DidDocument;
  domain: { did: string; url: string; document: DidDocument } | null;
  domainVerified: boolean;
  issuingDid: string;
  keys: IssuerPublicKey[];
}

const notYet = (id: string, why: string) =>
  new HallmarkError('resource_not_found', {
    message: `Certificate '${id}' has no credential yet: ${why}`,
    extras: { resource: 'credential', resource_id: id },
  });

export class CredentialService {
  constructor(private readonly d: CredentialServiceDeps) {}

  /**
   * One issuing transaction: up to `batchSize` queued certificates get their credential (a
   * status-list index allocated, signed by the enterprise's current key, stored) and leave the
   * queue, all at once. Answers how many were taken off the queue (0: nothing queued).
   */
  async issuePass(): Promise<number> {
    const { store, keys, publicUrl, chainId } = this.d;
    if (chainId === null) return 0;
    return transaction(this.d.pool, async (tx) => {
      const ids = await store.claimQueued(tx, this.d.batchSize ?? 25);
      if (ids.length === 0) return 0;
      const due = await store.lockDue(tx, ids);
      for (const group of byTenant(due)) {
        const { enterpriseId, livemode } = group[0]!.certificate;
        const key = await keys.ensureKey(enterpriseId, livemode, generateKeyMaterial);
        const did = issuingDid(publicUrl, enterpriseId, livemode, await findIssuer(tx, enterpriseId));
        const slots = await store.allocate(tx, enterpriseId, livemode, did, group.length);
        for (const [i, due] of group.entries()) {
          const slot = slots[i]!;
          const c = due.certificate;
          const unsigned = buildCredential(c, {
            id: `urn:uuid:${randomUUID()}`,
            issuerDid: did,
            mintedAt: due.mintedAt,
            contract: due.contract,
            chainId,
            statusListId: slot.listId,
            statusIndex: slot.index,
            referenceNumber: due.referenceNumber,
            publicUrl,
          });
          const credential = await signCredential(unsigned, { ...key, did });
          await store.insert(tx, {
            certificateId: c.id,
            enterpriseId,
            livemode,
            credentialId: unsigned.id,
            issuerDid: did,
            keySeq: key.seq,
            statusListId: slot.listId,
            statusIndex: slot.index,
            credential: credential as unknown as Record<string, unknown>,
          });
          // Burned before its credential existed: revoked from the start (same transaction).
          if (c.status === 'burned') await revokeCredential(tx, c.id);
        }
      }
      await store.dequeue(tx, ids);
      return ids.length;
    });
  }

  /** Whether a certificate has waited in the queue longer than `ms`. */
  queuedLongerThan(ms: number): Promise<boolean> {
    return this.d.store.queuedLongerThan(ms);
  }

  /** The stored credential of a minted certificate (public). */
  async credential(certificateId: string): Promise<StoredCredential> {
    const read = await this.d.certificates.getPublic(certificateId);
    const stored = await this.d.store.credentialOf(read.certificate.id);
    if (stored) return stored;
    throw notYet(
      certificateId,
      read.certificate.tokenId === null
        ? 'the certificate is waiting for its blockchain transaction. Retry once it is minted.'
        : 'it is being issued. Retry in a few seconds.',
    );
  }

  /** The proof bundle of a certificate (public). */
  async bundle(certificateId: string, now = new Date()): Promise<ProofBundle> {
    const stored = await this.credential(certificateId);
    const { certificate: c } = await this.d.certificates.getPublic(certificateId);
    const [hashes, batchKey, root] = await Promise.all([
      this.d.reads.batchMetadataHashes(c.batchId),
      this.d.reads.batchKey(c.batchId),
      this.d.reads.batchMerkleRoot(c.batchId),
    ]);
    if (!batchKey || !root) throw notYet(certificateId, 'its batch has no on-chain record.');
    const tree = buildBatchTree(hashes);
    return buildBundle(c, {
      credential: stored.credential,
      merkleRoot: root,
      batchKey,
      proof: tree.proof(c.position),
      didDocument: await this.documentOf(stored.issuerDid, stored.enterpriseId, stored.livemode),
      now,
    });
  }

  /** The hosted DID document (public): resource_not_found before the first key exists. */
  async hostedDocument(enterpriseId: string, livemode: boolean): Promise<DidDocument> {
    if (!isId('enterprise', enterpriseId)) throw notFound('issuer', enterpriseId);
    const did = hostedDid(this.d.publicUrl, enterpriseId, livemode);
    const doc = await this.documentOf(did, enterpriseId, livemode);
    if (doc.verificationMethod.length === 0) throw notFound('issuer', enterpriseId);
    return doc;
  }

  /** The document of one of an enterprise's DIDs: every key, each DID naming the other. */
  private async documentOf(did: string, enterpriseId: string, livemode: boolean): Promise<DidDocument> {
    const keys = await this.d.keys.publicKeys(enterpriseId, livemode);
    const hosted = hostedDid(this.d.publicUrl, enterpriseId, livemode);
    if (did !== hosted) return didDocument(did, keys, [hosted]);
    const profile = livemode ? await findIssuer(this.d.pool, enterpriseId) : null;
    const domain = profile?.domainVerified ? domainDid(profile.website) : null;
    return didDocument(did, keys, domain ? [domain] : []);
  }

  /** A status list credential, signed by the issuer's current key (cached until it changes). */
  async statusList(listId: string): Promise<string> {
    if (!isId('statusList', listId)) throw notFound('status_list', listId);
    const list = await this.d.store.statusList(listId);
    if (!list) throw notFound('status_list', listId);
    const key = await this.d.keys.currentKey(list.enterprise_id, list.livemode);
    if (!key) throw notFound('status_list', listId);
    if (list.signed_json && list.signed_version === list.version && list.signed_key_seq === key.seq)
      return list.signed_json;
    const unsigned = await buildStatusListCredential({
      publicUrl: this.d.publicUrl,
      listId,
      issuerDid: list.issuer_did,
      bits: list.bits,
      validFrom: list.updated_at,
    });
    const json = JSON.stringify(await signCredential(unsigned, { ...key, did: list.issuer_did }));
    await this.d.store.cacheSigned(listId, json, list.version, key.seq);
    return json;
  }

  /** The tenant's issuer identity; creates its first key when it has none. */
  async identity(scope: Scope): Promise<IssuerIdentity> {
    await this.d.keys.ensureKey(scope.enterpriseId, scope.livemode, generateKeyMaterial);
    return this.identityOf(scope);
  }

  /** Rotates the tenant's issuer key (docs/credentials.md › Rotation). */
  async rotate(scope: Scope): Promise<IssuerIdentity> {
    await this.d.keys.rotate(scope.enterpriseId, scope.livemode, await generateKeyMaterial());
    this.d.log.info({ enterprise: scope.enterpriseId, livemode: scope.livemode }, 'issuer key rotated');
    return this.identityOf(scope);
  }

  private async identityOf({ enterpriseId, livemode }: Scope): Promise<IssuerIdentity> {
    const { publicUrl } = this.d;
    const keys = await this.d.keys.publicKeys(enterpriseId, livemode);
    const profile = await findIssuer(this.d.pool, enterpriseId);
    const hosted = hostedDid(publicUrl, enterpriseId, livemode);
    const domain = livemode && profile ? domainDid(profile.website) : null;
    const verified = livemode && profile?.domainVerified === true && domain !== null;
    return {
      hostedDid: hosted,
      hostedDidUrl: hostedDidUrl(publicUrl, enterpriseId, livemode),
      hostedDocument: didDocument(hosted, keys, verified ? [domain] : []),
      domain:
        domain && profile
          ? { did: domain, url: domainDidUrl(profile.website), document: didDocument(domain, keys, [hosted]) }
          : null,
      domainVerified: verified,
      issuingDid: issuingDid(publicUrl, enterpriseId, livemode, profile),
      keys,
    };
  }
}

/** The due certificates grouped by enterprise and mode (they arrive ordered so). */
function byTenant(due: DueCertificate[]): DueCertificate[][] {
  const groups = new Map<string, DueCertificate[]>();
  for (const d of due) {
    const k = `${d.certificate.enterpriseId}:${d.certificate.livemode}`;
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  return [...groups.values()];
}
