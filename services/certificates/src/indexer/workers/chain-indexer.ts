// The chain indexer: follows the contract's logs from a persisted checkpoint and keeps the chain
// index (migration 3101: each batch's BatchMinted record and mint events, each moved token's
// owner and burn) that public verifications read instead of calling the chain, and marks burned
// certificates burned.
//
// - Reorg-safe: only blocks with HALLMARK_CHAIN_CONFIRMATIONS confirmations (counting the
//   mining block, as the relayer does) are read: up to latest − confirmations + 1.
// - Bounded: logs are asked for in ranges of at most `blockRange` blocks, a few ranges a pass.
// - Checkpoint: `chain_state` key `chain-indexer:<chainId>:<contract>` = the last block fully
//   indexed, advanced in the same database transaction that records the range's facts and burns
//   (and only if it still holds the value the range started from, so two indexers never both
//   record a range). The verifier trusts the index for blocks up to it.
// - Idempotent: the facts are keyed (a batch by its first token id, a token's owner only moves
//   forward in log order) and a certificate moves minted → burned once (the update matches
//   `minted` only, and provenance holds at most one `burned` entry per certificate), so
//   re-scanning a range changes nothing: one provenance entry and one certificate.burned event.
// - A burn of a token the database does not know yet while a batch of this contract is still
//   being confirmed (its token ids not recorded) holds the checkpoint just before that block
//   until the relayer has recorded the batch; a token no batch of ours minted is ignored.
// - Both event modes alike (chain/events.ts): a burn is always a single-token Transfer to zero.
// The SQL is in ../store.ts (burns) and ../chain-store.ts (the index); the rules in ../domain.ts.
import { transaction, type Logger, type Pool, type Queryable } from '@hallmark/kit';
import { getAddress, ZeroAddress, zeroPadValue, type Log, type Provider } from 'ethers';
import { BATCH_MINTED_TOPIC, CONSECUTIVE_TRANSFER_TOPIC, TRANSFER_TOPIC } from '../../chain/contract.js';
import { ChainIndexStore } from '../chain-store.js';
import { chainFactsOf } from '../domain.js';
import { BurnStore, type Burn } from '../store.js';

const ZERO_TOPIC = zeroPadValue(ZeroAddress, 32);

export interface ChainIndexerOptions {
  pool: Pool;
  provider: Provider;
  contractAddress: string;
  chainId: bigint;
  /** Blocks including the mining block before a burn is indexed (≥ 1). */
  confirmations: number;
  /** Largest block range of one getLogs call. */
  blockRange: number;
  /** First block to scan when there is no checkpoint yet (e.g. the contract's deployment block). */
  startBlock: number;
  /** Ranges indexed per pass at most (the next pass continues). */
  maxRangesPerPass?: number;
  log: Logger;
}

export interface PassResult {
  /** Last block indexed after the pass (null: nothing indexed yet). */
  checkpoint: number | null;
  burned: number;
}

export class ChainIndexer {
  readonly checkpointKey: string;
  private readonly senders = new Map<string, string>();
  private readonly store: BurnStore;
  private readonly index: ChainIndexStore;

  constructor(private readonly opts: ChainIndexerOptions) {
    this.checkpointKey = `chain-indexer:${opts.chainId}:${opts.contractAddress.toLowerCase()}`;
    this.store = new BurnStore(opts.pool, opts.contractAddress);
    this.index = new ChainIndexStore(opts.contractAddress);
  }

  checkpoint(db: Queryable = this.opts.pool): Promise<number | null> {
    return this.store.checkpoint(this.checkpointKey, db);
  }

  /** Indexes confirmed blocks from the checkpoint on, a bounded number of ranges. */
  async runOnce(): Promise<PassResult> {
    const { provider, confirmations, blockRange } = this.opts;
    const latest = await provider.getBlockNumber();
    const safe = latest - confirmations + 1;
    let last = (await this.checkpoint()) ?? this.opts.startBlock - 1;
    let burned = 0;
    for (let i = 0; i < (this.opts.maxRangesPerPass ?? 20) && last < safe; i++) {
      const from = last + 1;
      const to = Math.min(safe, from + blockRange - 1);
      const outcome = await this.indexRange(last, from, to);
      if (!outcome) break;
      burned += outcome.burned;
      if (outcome.upTo === last) break; // held back: wait for the relayer
      last = outcome.upTo;
    }
    return { checkpoint: (await this.checkpoint()) ?? null, burned };
  }

  private async indexRange(
    previous: number,
    from: number,
    to: number,
  ): Promise<{ upTo: number; burned: number } | null> {
    const logs = await this.opts.provider.getLogs({
      address: this.opts.contractAddress,
      topics: [[TRANSFER_TOPIC, CONSECUTIVE_TRANSFER_TOPIC, BATCH_MINTED_TOPIC]],
      fromBlock: from,
      toBlock: to,
    });
    let burns = logs
      .filter((l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 4 && l.topics[2] === ZERO_TOPIC)
      .map(burnOf)
      .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    let upTo = to;
    const held = await this.firstUnknownWhileMinting(burns);
    if (held !== null) {
      upTo = held - 1;
      burns = burns.filter((b) => b.blockNumber < held);
    }
    const facts = chainFactsOf(
      held === null ? logs : logs.filter((l) => l.blockNumber < held),
      this.opts.contractAddress,
    );
    for (const b of burns) await this.senderOf(b.transactionHash);

    return transaction(this.opts.pool, async (tx) => {
      const current = (await this.store.checkpoint(this.checkpointKey, tx, true)) ?? this.opts.startBlock - 1;
      if (current !== previous) return null; // another indexer moved on: start over next pass
      await this.index.record(tx, facts);
      let burned = 0;
      for (const b of burns)
        if (await this.store.recordBurn(tx, b, await this.senderOf(b.transactionHash))) burned++;
      if (upTo > previous) await this.store.setCheckpoint(tx, this.checkpointKey, upTo);
      if (burned > 0) this.opts.log.info({ from, to: upTo, burned }, 'burn indexer: certificates burned');
      return { upTo: Math.max(upTo, previous), burned };
    });
  }

  /**
   * The block of the first burn of a token no certificate of this contract has while a batch
   * of this contract awaits confirmation (its ids may be the unknown ones), else null.
   */
  private async firstUnknownWhileMinting(burns: Burn[]): Promise<number | null> {
    if (burns.length === 0) return null;
    const known = await this.store.knownTokens(burns.map((b) => b.tokenId));
    const unknown = burns.find((b) => !known.has(b.tokenId));
    if (!unknown) return null;
    return (await this.store.mintingOpen()) ? unknown.blockNumber : null;
  }

  /** The account that sent the burning transaction (the provenance actor). */
  private async senderOf(hash: string): Promise<string> {
    const cached = this.senders.get(hash);
    if (cached) return cached;
    const tx = await this.opts.provider.getTransaction(hash);
    if (!tx) throw new Error(`burn transaction ${hash} not found`);
    if (this.senders.size > 10_000) this.senders.clear();
    this.senders.set(hash, tx.from);
    return tx.from;
  }
}

function burnOf(log: Log): Burn {
  return {
    tokenId: BigInt(log.topics[3]!),
    from: getAddress(`0x${log.topics[1]!.slice(26)}`),
    transactionHash: log.transactionHash,
    blockNumber: log.blockNumber,
    logIndex: log.index,
  };
}
