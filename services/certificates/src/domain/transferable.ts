// Whether a certificate may be handed to someone else at all: the one check every owner-side
// hand-over (resale, export to the owner's wallet) runs on the locked certificate before it
// takes the hand-over hold. Pure. The stolen-flag work (issue 33, "Lost and stolen") adds its
// refusal here, so every flow that calls this refuses a flagged certificate with no change of
// its own.
import { HallmarkError } from '@hallmark/kit/errors';
import type { CertificateRecord } from './certificate.js';

/** Throws the refusal (422 validation_failed, `param`) when `cert` cannot change hands now. */
export function assertTransferable(
  cert: Pick<CertificateRecord, 'id' | 'status' | 'tokenId'>,
  param = 'certificateId',
): void {
  if (cert.status === 'burned')
    throw new HallmarkError('validation_failed', { param, message: `Certificate ${cert.id} is burned.` });
  if (cert.status !== 'minted' || cert.tokenId === null) {
    throw new HallmarkError('validation_failed', {
      param,
      message: `Only a minted certificate can change hands (${cert.id} is ${cert.status}).`,
    });
  }
}
