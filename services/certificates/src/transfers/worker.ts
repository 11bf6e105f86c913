// Transfers are sent by the mint worker's pass, after the open mint submissions: only the
// replica holding the relayer's advisory lock signs with the relayer's key, so mints and
// transfers share one nonce sequence (and the relayer's signer mutex within the process).
import type { Relayer } from '../chain/relayer.js';
import { withPasses } from '../minter.js';
import type { TransferService } from './service.js';

/**
 * The relayer as the mint worker drives it, with the open transfers processed in each pass,
 * then any further passes that feed transfers (the certificate-voucher claim repair).
 */
export function withTransfers(
  relayer: Relayer,
  transfers: TransferService,
  ...more: Array<() => Promise<number>>
): Relayer {
  return withPasses(relayer, [() => transfers.processOpen(), ...more]);
}
