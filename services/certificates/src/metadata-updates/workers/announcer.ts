// The ERC-4906 announcer: sends the queued metadata updates as announceMetadataUpdate
// transactions, run by the mint worker's pass (only the replica holding the relayer's advisory
// lock), through the relayer's one transaction path (../../chain/tx-sender.ts): signed and
// persisted before the broadcast, re-broadcast after a restart, fee-bumped when stuck.
//
// Life of an announcement: `claim` takes the queued updates whose tokens exist into one
// `pending` row with their coalesced ranges (one database transaction). Each drive first asks the
// chain whether any of its hashes was mined; only if not does it (re)send: pending → sign;
// signed/sent and unknown to the node → the same bytes again; their nonce went to another
// transaction → sign anew. Mined → `confirmed`; reverted → `failed` and its updates queued again.
// The contract keeps no record of announcements, so a crash in the wrong instant can make an
// update announced twice (a marketplace refreshes twice), never zero times.
import type { Logger, Pool } from '@hallmark/kit';
import type { TransactionReceipt } from 'ethers';
import { CertificatesContract } from '../../chain/contract.js';
import type { Relayer } from '../../chain/relayer.js';
import { MetadataUpdateStore, type Announcement } from '../store.js';

export interface MetadataAnnouncerOptions {
  pool: Pool;
  relayer: Relayer;
  confirmations: number;
  log: Logger;
  /** How long one pass waits for a receipt before leaving the announcement for the next pass. */
  receiptTimeoutMs?: number;
  pollMs?: number;
}

export class MetadataAnnouncer {
  readonly store: MetadataUpdateStore;

  constructor(private readonly opts: MetadataAnnouncerOptions) {
    this.store = new MetadataUpdateStore(opts.pool);
  }

  private get contract(): CertificatesContract {
    return this.opts.relayer.contract;
  }

  /**
   * One pass: the open announcements first (a restart's leftovers), then new ones while updates
   * are queued. Returns how many became final; stops at the first that is still waiting.
   */
  async processOpen(): Promise<number> {
    let done = 0;
    for (const a of await this.store.open(this.contract.address)) {
      if (!(await this.driveSafely(a))) return done;
      done++;
    }
    for (;;) {
      const a = await this.store.claim(this.contract.address);
      if (!a) return done;
      if (!(await this.driveSafely(a))) return done;
      done++;
    }
  }

  private async driveSafely(a: Announcement): Promise<boolean> {
    try {
      return await this.drive(a);
    } catch (err) {
      this.opts.log.warn({ err, announcement: a.id }, 'erc4906: announcement not completed; will retry');
      await this.store.noteError(a.id, String((err as Error)?.message ?? err)).catch(() => undefined);
      return false;
    }
  }

  /** Brings one announcement as far as it goes; true when it became final. */
  async drive(a: Announcement): Promise<boolean> {
    const { tx } = this.opts.relayer;
    if (!(await tx.findMined(a))) {
      if ((a.status === 'signed' || a.status === 'sent') && a.rawTx && a.txHash) {
        const known = await tx.provider.getTransaction(a.txHash);
        if (!known && (await tx.rebroadcast(a, this.store)) === 'nonce-taken') {
          // none of its hashes was mined (checked just before): the nonce went elsewhere
          this.opts.log.info({ announcement: a.id }, 'erc4906: nonce taken, signing again');
          await this.send(a);
        }
      } else {
        await this.send(a);
      }
    }
    const receipt = await this.waitMined(a);
    if (!receipt) return false;
    if (receipt.status !== 1) {
      await this.store.fail(a.id, `transaction ${receipt.hash} reverted`, receipt.blockNumber);
      this.opts.log.warn(
        { announcement: a.id, tx: receipt.hash },
        'erc4906: announcement reverted; re-queued',
      );
      return true;
    }
    await this.store.confirm(a.id, receipt.hash, receipt.blockNumber);
    Object.assign(a, { status: 'confirmed' });
    this.opts.log.info(
      { announcement: a.id, ranges: a.ranges.length, tx: receipt.hash },
      'erc4906: metadata updates announced',
    );
    return true;
  }

  /**
   * Signs announceMetadataUpdate with the next nonce, persists it (`signed`) and, unless told not
   * to, broadcasts it (`sent`). The gas estimate runs the call first: a call the contract would
   * refuse (e.g. the relayer lost its role) throws before anything is signed.
   * `broadcast: false` stops where a crash between persisting and sending would (tests).
   */
  async send(a: Announcement, { broadcast = true }: { broadcast?: boolean } = {}): Promise<string> {
    const { relayer } = this.opts;
    const data = CertificatesContract.encodeAnnounceMetadataUpdate(a.ranges);
    const to = this.contract.address;
    const gas = await relayer.tx.provider.estimateGas({ from: relayer.address, to, data });
    return relayer.tx.sign(a, this.store, { to, data, gasLimit: (gas * 12n) / 10n }, { broadcast });
  }

  private waitMined(a: Announcement): Promise<TransactionReceipt | null> {
    return this.opts.relayer.tx.waitMined(a, this.store, {
      confirmations: this.opts.confirmations,
      timeoutMs: this.opts.receiptTimeoutMs ?? 120_000,
      pollMs: this.opts.pollMs,
      label: { announcement: a.id },
    });
  }
}
