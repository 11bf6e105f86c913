// The chain index's re-check: verifications trust the chain index (no RPC per read), so in the
// background this pass reads the chain itself for a few certificates at a time (a cursor walking
// every minted certificate by token id, plus each one already in disagreement) and compares the
// chain's owner, existence and batch record with what the index says. The chain is read at the
// index's checkpoint block, so a change the indexer has simply not reached yet is no
// disagreement. A disagreement is flagged where an operator sees it: a warning in the log, the
// counter hallmark_chain_index_disagreements_total{fact} and the gauge
// hallmark_chain_index_disagreements (open ones; alerts.yaml pages on it), and a row of
// chain_index_disagreements, resolved when a later re-check agrees again. The SQL is in
// ../recheck-store.ts, the comparison in ../domain.ts.
import { counter, gauge, type Logger, type Pool } from '@hallmark/kit';
import { chainIndexKey, indexCovers } from '../../domain/chain-index.js';
import { read, type VerifierChain } from '../chain-checks.js';
import { compareFacts } from '../domain.js';
import { RecheckStore, type RecheckTarget } from '../recheck-store.js';
import { VerifyStore } from '../store.js';

const flagged = counter(
  'hallmark_chain_index_disagreements_total',
  'Disagreements the re-check found between the chain index and the chain, by fact (owner, burned, batch)',
  ['fact'],
);
const open = gauge(
  'hallmark_chain_index_disagreements',
  'Open disagreements between the chain index and the chain (each resolved when a re-check agrees again)',
);

export interface RecheckOptions {
  pool: Pool;
  chain: VerifierChain & { chainId: bigint };
  log: Logger;
  /** Certificates compared per pass (besides those in disagreement). */
  batchSize: number;
  chainTimeoutMs?: number;
}

export interface RecheckResult {
  checked: number;
  flagged: number;
  resolved: number;
  open: number;
}

export class IndexRecheck {
  private readonly store: RecheckStore;
  private readonly facts: VerifyStore;
  private readonly indexKey: string;
  private readonly cursorKey: string;

  constructor(private readonly opts: RecheckOptions) {
    const { contract, chainId } = opts.chain;
    this.store = new RecheckStore(opts.pool, contract.address.toLowerCase());
    this.facts = new VerifyStore(opts.pool);
    this.indexKey = chainIndexKey(chainId, contract.address);
    this.cursorKey = `chain-recheck:${chainId}:${contract.address.toLowerCase()}`;
  }

  async runOnce(): Promise<RecheckResult> {
    const targets = new Map<string, RecheckTarget>();
    for (const t of await this.store.open()) targets.set(t.certificateId, t);
    for (const t of await this.store.next(this.cursorKey, this.opts.batchSize))
      targets.set(t.certificateId, t);
    const result: RecheckResult = { checked: 0, flagged: 0, resolved: 0, open: 0 };
    for (const t of targets.values()) await this.check(t, result);
    result.open = await this.store.countOpen();
    open.set(result.open);
    return result;
  }

  private async check(t: RecheckTarget, result: RecheckResult): Promise<void> {
    const { contract } = this.opts.chain;
    const facts = await this.facts.tokenFacts(contract.address, t.tokenId, this.indexKey);
    // Not indexed yet: verifications of it read the chain, there is nothing to compare.
    if (facts.checkpoint === null || facts.checkpoint < t.blockNumber) return;
    const at = facts.checkpoint;
    const ms = this.opts.chainTimeoutMs ?? 5000;
    const [owner, batch] = await Promise.all([
      read(() => contract.ownerOf(t.tokenId, at), ms),
      t.batchKey ? read(() => contract.batchByKey(t.batchKey!, at), ms) : null,
    ]);
    const chain = {
      owner: owner.ok ? owner.value : owner.nonexistent ? null : undefined,
      batch: batch?.ok ? (batch.value ?? null) : undefined,
    };
    const indexed = indexCovers(facts, t.tokenId, t.blockNumber) ? facts : { batch: null, move: facts.move };
    result.checked++;
    for (const c of compareFacts(indexed, chain)) {
      if (c.agree) {
        if (await this.store.resolve(t.tokenId, c.fact)) {
          result.resolved++;
          this.opts.log.info(
            { certificateId: t.certificateId, tokenId: String(t.tokenId), fact: c.fact },
            'chain index: agrees with the chain again',
          );
        }
        continue;
      }
      const fresh = await this.store.flag({ certificateId: t.certificateId, tokenId: t.tokenId, ...c });
      if (!fresh) continue;
      result.flagged++;
      flagged.inc({ fact: c.fact });
      this.opts.log.warn(
        {
          certificateId: t.certificateId,
          tokenId: String(t.tokenId),
          fact: c.fact,
          indexed: c.indexed,
          chain: c.chain,
          block: at,
        },
        'chain index: disagrees with the chain',
      );
    }
  }
}
