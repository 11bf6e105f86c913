// The static verifier page's script: reads the bundle (chosen or dropped), the RPC URL and the
// optional image, runs verifyBundle in the browser and shows each check. Bundled into
// static/verifier.html by build-page.mjs (no server: it works opened from file://).
import { verifyBundle, type VerificationReport } from '../src/index.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>('form');
const drop = $<HTMLDivElement>('drop');
const bundleInput = $<HTMLInputElement>('bundle');
const imageInput = $<HTMLInputElement>('image');
const hint = $<HTMLParagraphElement>('bundle-hint');
let dropped: File | null = null;

const LABELS: Record<string, string> = {
  bundle_format: 'Proof bundle',
  issuer_did: 'Issuer identity (DID)',
  credential_signature: 'Issuer signature',
  credential_matches_bundle: 'Credential names this certificate',
  metadata_hash: 'Metadata unchanged',
  chain_id: 'Chain',
  mint_transaction: 'Mint transaction',
  merkle_proof: 'Metadata anchored on chain',
  token: 'Token exists',
  status_list: 'Not revoked by the issuer',
  image: 'Image',
};

const HEADLINES: Record<VerificationReport['status'], string> = {
  valid: 'Verified: a genuine Hallmark certificate, currently valid.',
  revoked: 'Revoked: this certificate was genuine but has been revoked or burned.',
  invalid: 'Not verified: a check failed — do not trust this certificate.',
  unknown: 'Not verified yet: a check could not be made (is the RPC URL right?).',
};

drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const file = e.dataTransfer?.files[0];
  if (!file) return;
  dropped = file;
  hint.textContent = `Dropped: ${file.name}`;
  void run();
});
bundleInput.addEventListener('change', () => {
  dropped = null;
  hint.textContent = 'Choose the file, or drag and drop it here.';
});
form.addEventListener('submit', (e) => {
  e.preventDefault();
  void run();
});

function item(parent: HTMLElement, tag: string, text: string): HTMLElement {
  const el = document.createElement(tag);
  el.textContent = text;
  parent.append(el);
  return el;
}

function show(report: VerificationReport): void {
  $('result').hidden = false;
  const status = $('status');
  status.dataset.status = report.status;
  status.textContent = HEADLINES[report.status];
  const cert = $('certificate');
  cert.replaceChildren();
  if (report.certificate) {
    const c = report.certificate;
    const rows: [string, string][] = [
      ['Certificate', c.id],
      ['Product', c.name],
      ['Issuer', c.issuer],
      ['Token', `${c.tokenId} of ${c.contract} (chain ${c.chainId})`],
      ['Held by', c.owner ?? '—'],
    ];
    for (const [k, v] of rows) {
      item(cert, 'dt', k);
      item(cert, 'dd', v);
    }
  }
  const list = $('checks');
  list.replaceChildren();
  for (const check of report.checks) {
    const li = item(list, 'li', '');
    li.dataset.check = check.name;
    li.dataset.result = check.result;
    item(li, 'span', check.result).className = 'result';
    item(li, 'strong', LABELS[check.name] ?? check.name);
    li.append(document.createTextNode(` — ${check.detail}`));
  }
  const notes = $('notes');
  notes.replaceChildren();
  for (const note of report.notes) item(notes, 'li', note);
  $('notes-section').hidden = report.notes.length === 0;
}

async function run(): Promise<void> {
  const file = dropped ?? bundleInput.files?.[0];
  const status = $('status');
  $('result').hidden = false;
  if (!file) {
    status.dataset.status = 'invalid';
    status.textContent = 'Choose a proof bundle file first.';
    return;
  }
  status.dataset.status = 'unknown';
  status.textContent = 'Verifying…';
  $('checks').replaceChildren();
  try {
    const image = imageInput.files?.[0];
    const report = await verifyBundle(await file.text(), {
      rpcUrl: $<HTMLInputElement>('rpc').value.trim(),
      ...(image ? { image: new Uint8Array(await image.arrayBuffer()) } : {}),
    });
    show(report);
  } catch (err) {
    status.dataset.status = 'invalid';
    status.textContent = `Could not verify: ${(err as Error).message}`;
  }
}
