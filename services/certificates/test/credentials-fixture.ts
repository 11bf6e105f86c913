// What the credentials integration tests share: a CredentialService on a pool and chain, a
// mint through the real relayer, the issuing pass run until the queue is empty, and a
// credential verified independently against its DID document and its served status list.
import { expect } from '@jest/globals';
import type { Logger, Pool } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import type { DidDocument } from '../src/credentials/domain/did.js';
import { IssuerKeyStore } from '../src/credentials/keys-store.js';
import { CredentialService } from '../src/credentials/service.js';
import { CredentialStore } from '../src/credentials/store.js';
import type { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { VerifyStore } from '../src/verify/store.js';
import { verifyIndependently } from './credentials-verify.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };

export function credentialService(
  db: Pool,
  chain: Chain,
  o: { publicUrl: string; keys: string; batchSize: number; log: Logger },
): CredentialService {
  return new CredentialService({
    pool: db,
    store: new CredentialStore(db),
    keys: new IssuerKeyStore(db, o.keys),
    certificates: new CertificatesStore(db, () => chain.contract.address),
    reads: new VerifyStore(db),
    publicUrl: o.publicUrl,
    chainId: chain.chainId,
    batchSize: o.batchSize,
    log: o.log,
  });
}

/** Mints `n` certificates and answers their ids and token ids. */
export async function mintCertificates(
  d: {
    api: ReturnType<typeof createCertificatesHandlers>;
    relayer: Relayer;
    principal: Principal;
    holder: string;
  },
  n: number,
  name: string,
): Promise<{ id: string; tokenId: number }[]> {
  const res = await d.api.mintBatch(
    {
      principal: d.principal,
      idempotency_key: `${name}-${Math.random()}`,
      holder_address: d.holder,
      items: Array.from({ length: n }, (_, i) => ({
        name: `${name} #${i + 1}`,
        description: 'Hand-made',
        metadata_json: JSON.stringify({ material: 'gold', sizes: [52, 54] }),
      })),
    },
    CALL,
  );
  expect(await d.relayer.processOpen()).toBe(1);
  return Promise.all(
    res.certificates.map(async (c) => {
      const read = await d.api.getCertificate({ principal: d.principal, certificate_id: c.id }, CALL);
      return { id: c.id, tokenId: read.token_id! };
    }),
  );
}

/** Runs the issuing pass until the queue is empty; how many it took. */
export async function drain(service: CredentialService): Promise<number> {
  let total = 0;
  for (let n = await service.issuePass(); n > 0; n = await service.issuePass()) total += n;
  return total;
}

/** Verifies a certificate's stored credential against `dids` and its served status list. */
export async function verifyServed(service: CredentialService, certificateId: string, dids: DidDocument[]) {
  const stored = await service.credential(certificateId);
  const listUrl = (stored.credential.credentialStatus as { statusListCredential: string })
    .statusListCredential;
  const list = JSON.parse(await service.statusList(stored.statusListId)) as unknown;
  return { stored, result: await verifyIndependently(stored.credential, dids, new Map([[listUrl, list]])) };
}
