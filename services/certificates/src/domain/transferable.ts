// Whether a certificate may be handed to someone else at all: the one check every owner-side
// hand-over (gift, resale, export, import) runs on the certificate before it takes the
// hand-over hold. Pure. A certificate reported stolen or lost is refused here with the stolen
// slice's 409 (docs/lost-and-stolen.md); the hold itself (../handover-store.ts) refuses it
// again under the row lock, so a report made between this check and the hold still wins.
import { HallmarkError } from '@hallmark/kit/errors';
import type { CertificateRecord } from './certificate.js';
import { assertNotReportedStolen } from './stolen.js';

/** Throws the refusal (409 reported stolen, else 422 validation_failed; `param`) when `cert` cannot change hands now. */
export function assertTransferable(
  cert: Pick<CertificateRecord, 'id' | 'status' | 'tokenId' | 'stolen'>,
  param = 'certificateId',
  doing = 'it cannot change hands',
): void {
  assertNotReportedStolen({ id: cert.id, stolen: cert.stolen ?? null }, { param, doing });
  if (cert.status === 'burned')
    throw new HallmarkError('validation_failed', { param, message: `Certificate ${cert.id} is burned.` });
  if (cert.status !== 'minted' || cert.tokenId === null) {
    throw new HallmarkError('validation_failed', {
      param,
      message: `Only a minted certificate can change hands (${cert.id} is ${cert.status}).`,
    });
  }
}
