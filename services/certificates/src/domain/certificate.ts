// Certificate domain: validation of a MintBatch request, the canonical metadata and its hash
// (the leaf of the batch's Merkle tree), and the record types the store returns.
import { createHash } from 'node:crypto';
import { invalidParam, missingParam } from '@hallmark/kit/errors';
import { ID_PREFIXES } from '@hallmark/kit/ids';
import { getAddress, isAddress } from 'ethers';
import { parseItemIdentity, passportUrlProblem } from '../digital-link/domain.js';
import { keccakUtf8 } from './keccak.js';
import type { PublicServiceEntry } from './service-record.js';
import type { StolenFlag } from './stolen.js';
import { warrantyView, type Warranty } from './warranty.js';

/** The outbox source of every event of this service (subjects hallmark.certificates.*). */
export const EVENT_SOURCE = 'certificates';
const MAX_BATCH_ITEMS = 1000;
const MAX_METADATA_JSON = 16_384;

export type CertificateStatus = 'pending' | 'minted' | 'burned';
export type BatchStatus = 'pending' | 'minted' | 'failed';
export type ProvenanceKind =
  | 'minted'
  | 'transferred'
  | 'gifted'
  | 'resold'
  | 'claimed'
  | 'claim_reverted'
  | 'burned'
  | 'warranty_set'
  | 'warranty_changed'
  | 'reported_stolen'
  | 'reported_lost'
  | 'stolen_cleared'
  | 'recovered';

export interface Scope {
  enterpriseId: string;
  livemode: boolean;
  actorId: string;
}

export interface MintItemInput {
  name: string;
  imageUrl: string | null;
  /** The spec's metadata object: {name, artist?, category?, description?, …extra}. */
  metadata: Record<string, unknown>;
  metadataHash: string;
  /** GS1 GTIN (14 digits) and serial (AI 21): both or neither (docs/digital-link.md). */
  gtin: string | null;
  serial: string | null;
}

export interface MintBatchInput {
  idempotencyKey: string;
  holderAddress: string;
  items: MintItemInput[];
  /** sha256 of the canonical request, to tell a replay from a conflicting reuse of the key. */
  requestHash: string;
}

export interface ProvenanceRecord {
  kind: ProvenanceKind;
  actor: string | null;
  from: string | null;
  to: string | null;
  transactionHash: string | null;
  blockNumber: number | null;
  at: Date;
}

export interface CertificateRecord {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  batchId: string;
  position: number;
  tokenId: bigint | null;
  name: string;
  imageUrl: string | null;
  metadata: Record<string, unknown>;
  metadataHash: string;
  holderAddress: string;
  status: CertificateStatus;
  transactionHash: string | null;
  blockNumber: number | null;
  /** GS1 GTIN (14 digits) and serial: both or neither; not part of the metadata hash. */
  gtin: string | null;
  serial: string | null;
  /** Set with SetWarranty; kept out of `metadata` (and so out of the metadata hash). */
  warranty?: Warranty | null;
  /** The open lost/stolen report (domain/stolen.ts); null or absent: none. */
  stolen?: StolenFlag | null;
  /** Service records the owner accepted, oldest performed first (domain/service-record.ts). */
  serviceHistory?: PublicServiceEntry[];
  createdAt: Date;
  updatedAt: Date;
}

/** JSON with object keys sorted at every level: the stable form that is hashed. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The metadata hash of a certificate: keccak256 of the canonical JSON of
 * {name, imageUrl, metadata}. Stable for a certificate's lifetime (token ids and warranty are
 * not part of it), so it can be proven against the batch root recorded on chain.
 */
export function metadataHashOf(
  name: string,
  imageUrl: string | null,
  metadata: Record<string, unknown>,
): string {
  return keccakUtf8(canonicalJson({ name, imageUrl, metadata }));
}

/** The 32-byte on-chain batch key: keccak256 of the batch's idempotency key in its tenant. */
export function batchKeyFor(enterpriseId: string, livemode: boolean, idempotencyKey: string): string {
  return keccakUtf8(`${enterpriseId}:${livemode ? 'live' : 'test'}:${idempotencyKey}`);
}

function optText(value: string | undefined, param: string, max: number): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > max) throw invalidParam(param, `${param} must be at most ${max} characters.`);
  return value;
}

export interface RawMintItem {
  name?: string;
  image_url?: string;
  metadata_json?: string;
  description?: string;
  category?: string;
  gtin?: string;
  serial?: string;
}

export function parseMintBatch(req: {
  idempotencyKey?: string;
  holderAddress?: string;
  items?: RawMintItem[];
}): MintBatchInput {
  const key = req.idempotencyKey ?? '';
  if (!key) throw missingParam('idempotency_key');
  if (key.length > 255)
    throw invalidParam('idempotency_key', 'idempotency_key must be at most 255 characters.');
  if (!req.holderAddress) throw missingParam('holder_address');
  if (!isAddress(req.holderAddress) || !/^0x[0-9a-fA-F]{40}$/.test(req.holderAddress)) {
    throw invalidParam('holder_address', 'holder_address must be a 0x-prefixed 20-byte address.');
  }
  const holderAddress = getAddress(req.holderAddress);
  const raw = req.items ?? [];
  if (raw.length === 0) throw missingParam('items');
  if (raw.length > MAX_BATCH_ITEMS) {
    throw invalidParam('items', `A batch holds at most ${MAX_BATCH_ITEMS} certificates.`);
  }
  const items = raw.map((item, i): MintItemInput => {
    const p = (field: string) => `items[${i}].${field}`;
    const name = (item.name ?? '').trim();
    if (!name) throw missingParam(p('name'));
    if (name.length > 200) throw invalidParam(p('name'), 'name must be at most 200 characters.');
    const imageUrl = optText(item.image_url, p('image_url'), 2048) ?? null;
    if (imageUrl !== null && !/^https?:\/\/\S+$/i.test(imageUrl)) {
      throw invalidParam(p('image_url'), 'image_url must be an http(s) URL.');
    }
    let extra: Record<string, unknown> = {};
    if (item.metadata_json) {
      if (item.metadata_json.length > MAX_METADATA_JSON) {
        throw invalidParam(p('metadata'), `metadata must be at most ${MAX_METADATA_JSON} bytes of JSON.`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(item.metadata_json);
      } catch {
        throw invalidParam(p('metadata'), 'metadata must be a JSON object.');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw invalidParam(p('metadata'), 'metadata must be a JSON object.');
      }
      extra = parsed as Record<string, unknown>;
      // Chain-derived and warranty fields are the service's, never the caller's.
      delete extra.tokenId;
      delete extra.warranty;
    }
    const description = optText(item.description, p('description'), 2000) ?? extra.description;
    const category = optText(item.category, p('category'), 200) ?? extra.category;
    const metadata: Record<string, unknown> = { ...extra, name };
    if (description !== undefined) metadata.description = description;
    if (category !== undefined) metadata.category = category;
    const passportProblem = passportUrlProblem(metadata.passportUrl);
    if (passportProblem) throw invalidParam(p('metadata'), passportProblem);
    const identity = parseItemIdentity(item, p);
    return {
      name,
      imageUrl,
      metadata,
      metadataHash: metadataHashOf(name, imageUrl, metadata),
      gtin: identity?.gtin ?? null,
      serial: identity?.serial ?? null,
    };
  });
  // One item per (GTIN, serial) in a batch too, so the store's uniqueness never meets a duplicate
  // of the batch itself (it would name no existing certificate).
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    if (item.gtin === null) return;
    const key = `${item.gtin}/${item.serial}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw invalidParam(
        `items[${i}].serial`,
        `items[${i}] has the same GTIN and serial as items[${first}] (${item.gtin}, '${item.serial}').`,
      );
    seen.set(key, i);
  });
  // Items without a GTIN hash as before, so replays of earlier requests keep their hash.
  const requestHash = createHash('sha256')
    .update(
      canonicalJson({
        holderAddress,
        items: items.map((i) =>
          i.gtin === null ? i.metadataHash : { hash: i.metadataHash, gtin: i.gtin, serial: i.serial },
        ),
      }),
    )
    .digest('hex');
  return { idempotencyKey: key, holderAddress, items, requestHash };
}

/**
 * The metadata as readers see it: the stored object plus `tokenId` once minted and
 * `warranty` (with its derived status) once set.
 */
export function metadataView(c: CertificateRecord, now: Date = new Date()): Record<string, unknown> {
  const view: Record<string, unknown> =
    c.tokenId === null ? { ...c.metadata } : { ...c.metadata, tokenId: Number(c.tokenId) };
  if (c.warranty) view.warranty = warrantyView(c.warranty, now);
  return view;
}

/**
 * What a public read (the public certificate, the verification page) shows of a provenance
 * entry's actor: a chain address as it is (it is public on the chain), else only the kind of
 * actor (`api_key`, `user`), never an internal id (docs/security.md › Public provenance).
 * Enterprises have no display name yet, so none is shown; their ids are internal too.
 */
export function publicActor(actor: string | null): string | null {
  if (actor === null) return null;
  if (/^0x[0-9a-fA-F]{40}$/.test(actor)) return actor;
  if (actor.startsWith(ID_PREFIXES.apiKey)) return 'api_key';
  if (actor.startsWith(ID_PREFIXES.user)) return 'user';
  return null;
}

/** The certificate.minted payload: the certificate as the public read shows it, plus refs. */
export function certificateEventObject(c: CertificateRecord): Record<string, unknown> {
  return {
    id: c.id,
    tokenId: c.tokenId === null ? null : Number(c.tokenId),
    name: c.name,
    imageUrl: c.imageUrl,
    metadata: metadataView(c),
    metadataHash: c.metadataHash,
    ...(c.gtin !== null ? { gtin: c.gtin, serial: c.serial } : {}),
    batchId: c.batchId,
    holderAddress: c.holderAddress,
    status: c.status,
    transactionHash: c.transactionHash,
    blockNumber: c.blockNumber,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/**
 * The certificate.batch_minted event of a minted batch of more than one certificate: the batch
 * and its chain refs once, and each certificate's id and token (`certs` in position order).
 */
export function batchMintedEvent(batchId: string, certs: readonly CertificateRecord[]) {
  const first = certs[0]!;
  return {
    type: 'certificate.batch_minted' as const,
    data: {
      object: {
        batchId,
        quantity: certs.length,
        firstTokenId: Number(first.tokenId),
        holderAddress: first.holderAddress,
        transactionHash: first.transactionHash ?? '',
        blockNumber: first.blockNumber ?? 0,
        certificates: certs.map((c) => ({ id: c.id, tokenId: Number(c.tokenId) })),
      },
    },
    enterpriseId: first.enterpriseId,
    livemode: first.livemode,
  };
}
