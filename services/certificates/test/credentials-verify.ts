// Independent verification of Hallmark credentials in tests: @digitalbazaar/vc with the
// ecdsa-rdfc-2019 suite and the Bitstring Status List checker, given the DID documents and
// status list credentials the test fetched (nothing is resolved over the network).
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import { staticDocumentLoader, type DidDocumentLike } from '../src/credentials/domain/context.js';

export interface IndependentResult {
  verified: boolean;
  /** The revocation bit, when a status list was given and verified. */
  revoked: boolean | null;
  error?: string;
}

/** Verifies `credential` (signature, and its status when `lists` has its list). */
export async function verifyIndependently(
  credential: object,
  dids: readonly DidDocumentLike[],
  lists: ReadonlyMap<string, unknown> = new Map(),
): Promise<IndependentResult> {
  const documentLoader = staticDocumentLoader(dids, lists);
  const suite = new DataIntegrityProof({ cryptosuite });
  let revoked: boolean | null = null;
  const r = await vc.verifyCredential({
    credential,
    suite,
    documentLoader,
    checkStatus: async ({ credential: c }) => {
      const url = (c as { credentialStatus?: { statusListCredential?: string } }).credentialStatus
        ?.statusListCredential;
      if (!url || !lists.has(url)) return { verified: true }; // status not asked for
      const s = (await checkStatus({ credential: c, documentLoader, suite })) as {
        verified: boolean;
        error?: Error;
        results?: Array<{ status: boolean }>;
      };
      if (s.verified) revoked = s.results?.[0]?.status ?? null;
      return s;
    },
  });
  const errors = r.error?.errors ?? (r.error ? [r.error] : []);
  return {
    verified: r.verified,
    revoked,
    ...(errors.length ? { error: errors.map((e) => e.message).join('; ') } : {}),
  };
}
