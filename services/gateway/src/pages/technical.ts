// The verify page's "Technical details": what a specialist checks by hand (the batch's Merkle
// root, the metadata hash, the contract, the holder, the transactions), folded away from the
// shopper under a <details>, each hash or address in full and linked to a block explorer when
// one is configured (pages/explorers.ts: one per chain, none for a local chain).
import type { Verification } from '../routes/verify/verification.js';
import { html, type Html } from './html.js';

/** Provenance kinds as the pages name them. */
export const PROVENANCE_LABELS: Record<string, string> = {
  minted: 'Minted',
  transferred: 'Transferred',
  gifted: 'Gifted',
  claimed: 'Claimed',
  claim_reverted: 'Claim undone (transfer failed)',
  burned: 'Burned',
  warranty_set: 'Warranty set',
  warranty_changed: 'Warranty changed',
  reported_stolen: 'Reported stolen',
  reported_lost: 'Reported lost',
  stolen_cleared: 'Lost/stolen report cleared',
  recovered: 'Recovered by the brand',
};

const ZERO_ADDRESS = /^0x0{40}$/;

/** Where the technical details link: a block explorer's URL templates (`{hash}`, `{address}`). */
export interface Explorer {
  tx: string;
  address: string;
}

const HEX = /^0x[0-9a-fA-F]+$/;

/** A hash or address in full (a specialist copies it), linked to the explorer when one is set. */
function onExplorer(template: string | undefined, value: string): Html {
  const code = html`<code title="${value}">${value}</code>`;
  if (!template || !HEX.test(value)) return code;
  const href = template.replaceAll('{hash}', value).replaceAll('{address}', value);
  return html`<a href="${href}" rel="noopener noreferrer nofollow">${code}</a>`;
}

/**
 * What a specialist checks by hand, folded away from the shopper: the batch's Merkle root and
 * the certificate's leaf, the contract, holder and transactions, with explorer links.
 */
export function technicalDetails(v: Verification, explorer: Explorer | null): Html {
  const c = v.chain;
  const tx = explorer?.tx;
  const addr = explorer?.address;
  const row = (label: string, value: Html | string | null | undefined) =>
    value
      ? html`<dt>${label}</dt>
          <dd>${value}</dd>`
      : null;
  const moves = v.provenance.filter((p) => p.transactionHash || p.from || p.to);
  return html`<details class="card tech" id="technical">
    <summary>Technical details</summary>
    <dl>
      ${row('Merkle root', c.merkleRoot ? html`<code title="${c.merkleRoot}">${c.merkleRoot}</code>` : null)}
      ${row('Metadata hash', c.metadataHash ? html`<code title="${c.metadataHash}">${c.metadataHash}</code>` : null)}
      ${row('Chain', c.chainId)} ${row('Contract', c.contract ? onExplorer(addr, c.contract) : null)}
      ${row('Holder', c.holder && !ZERO_ADDRESS.test(c.holder) ? onExplorer(addr, c.holder) : null)}
      ${row('Owner on chain', c.owner && c.owner.toLowerCase() !== (c.holder ?? '').toLowerCase() ? onExplorer(addr, c.owner) : null)}
      ${row('Transaction', c.transactionHash ? onExplorer(tx, c.transactionHash) : null)}
      ${row('Block', c.blockNumber !== null ? String(c.blockNumber) : null)} ${row('Batch', c.batchId)}
    </dl>
    ${
      moves.length
        ? html`<h3>On chain</h3>
            <ol class="timeline">
              ${moves.map((p) => {
                const from = p.from && !ZERO_ADDRESS.test(p.from) ? p.from : null;
                const to = p.to && !ZERO_ADDRESS.test(p.to) ? p.to : null;
                return html`<li data-kind="${p.kind}">
                  <strong>${PROVENANCE_LABELS[p.kind] ?? p.kind}</strong>
                  <div class="refs">
                    ${from ? html`from ${onExplorer(addr, from)} ` : null}${to ? html`to ${onExplorer(addr, to)} ` : null}${
                      p.transactionHash ? html`tx ${onExplorer(tx, p.transactionHash)}` : null
                    }${p.blockNumber !== null ? html`, block ${p.blockNumber}` : null}
                  </div>
                </li>`;
              })}
            </ol>`
        : null
    }
  </details>`;
}
