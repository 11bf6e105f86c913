// Transfers are sent by the mint worker's pass, after the open mint submissions: only the
// replica holding the relayer's advisory lock signs with the relayer's key, so mints and
// transfers share one nonce sequence (and the relayer's signer mutex within the process).
import type { Relayer } from '../chain/relayer.js';
import type { TransferService } from './service.js';

/** The relayer as the mint worker drives it, with the open transfers processed in each pass. */
export function withTransfers(relayer: Relayer, transfers: TransferService): Relayer {
  const driven = Object.create(relayer) as Relayer;
  driven.processOpen = async () => {
    const minted = await relayer.processOpen();
    return minted + (await transfers.processOpen());
  };
  return driven;
}
