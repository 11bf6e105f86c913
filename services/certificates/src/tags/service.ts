// Tap-to-verify use cases: register a tag (the enterprise's master key made on first use, the
// tag's keys exported encrypted to the brand's programming station), list and revoke tags,
// and judge a tap: decrypt PICCData with the key's meta read key, find the tag by its UID,
// check the SUN CMAC with the tag's file read key, then take the counter (store.takeTap).
import { constants, createPublicKey, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';
import { counter as metric, invalidParam, missingParam, newId, type Logger } from '@hallmark/kit';
import type { VerifyCertificateResponse } from '@hallmark/proto/certificates/v1/verification';
import type { Scope } from '../domain/certificate.js';
import { fileReadKey, metaReadKey, tagKeys } from './domain/keys.js';
import { decryptPiccData, hexUpper, KEY_BYTES, macMatches } from './domain/sun.js';
import { parseTap, parseUid, urlTemplate, type TagRecord, type TapOutcome } from './domain/tag.js';
import type { TagStore } from './store.js';

/** Smallest RSA modulus accepted for the programming station's key. */
const MIN_RSA_BITS = 2048;

export interface TagServiceDeps {
  store: TagStore;
  publicUrl: string;
  /** The certificate's verification as VerifyCertificate answers it (a genuine tap shows it). */
  verify: (certificateId: string) => Promise<VerifyCertificateResponse>;
  log: Logger;
}

export interface RegisteredTag {
  tag: TagRecord;
  keyId: string;
  urlTemplate: string;
  /** Base64 RSA-OAEP-SHA256 of the five keys, key 0 first (80 bytes). */
  encryptedKeys: string;
}

export interface TapResult {
  outcome: TapOutcome;
  tag?: TagRecord;
  counter?: number;
  lastCounter?: number;
  tapNumber?: number;
  verification?: VerifyCertificateResponse;
}

/** Taps by outcome (a rising `replayed` is cloning or a shared link). */
const taps = () =>
  metric('hallmark_nfc_taps_total', 'NFC tag taps by outcome', ['outcome'], {
    known: ['genuine', 'replayed', 'bad_signature', 'revoked', 'unknown_tag', 'malformed'].map((outcome) => ({
      outcome,
    })),
  });

/** The programming station's RSA public key (PEM), ≥ 2048 bits. */
export function programmingKey(pem: string | undefined): KeyObject {
  const param = 'programming_public_key';
  if (!pem) throw missingParam(param);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw invalidParam(param, `${param} must be an RSA public key in PEM (-----BEGIN PUBLIC KEY-----).`);
  }
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    throw invalidParam(param, `${param} must be an RSA key of at least ${MIN_RSA_BITS} bits.`);
  return key;
}

export class TagService {
  private readonly taps = taps();

  constructor(private readonly deps: TagServiceDeps) {}

  async register(
    scope: Scope,
    req: { certificateId: string; uid?: string; programmingPublicKey?: string },
  ): Promise<RegisteredTag> {
    const uid = parseUid(req.uid);
    const station = programmingKey(req.programmingPublicKey);
    if (!req.certificateId) throw missingParam('certificate_id');
    const key = await this.deps.store.ensureKey(scope, newId('nfcTagKey'), () => randomBytes(KEY_BYTES));
    const tag = await this.deps.store.register(scope, {
      id: newId('nfcTag'),
      keyId: key.id,
      certificateId: req.certificateId,
      uid,
      createdBy: scope.actorId || null,
    });
    const keys = Buffer.concat(await tagKeys(key.master, Buffer.from(uid, 'hex')));
    const encrypted = publicEncrypt(
      { key: station, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      keys,
    );
    keys.fill(0);
    return {
      tag,
      keyId: key.id,
      urlTemplate: urlTemplate(this.deps.publicUrl, key.id),
      encryptedKeys: encrypted.toString('base64'),
    };
  }

  list(scope: Scope, certificateId: string): Promise<TagRecord[]> {
    return this.deps.store.list(scope, certificateId);
  }

  revoke(scope: Scope, certificateId: string, tagId: string): Promise<TagRecord> {
    return this.deps.store.revoke(scope, certificateId, tagId);
  }

  /** Judges one tap's SUN message; a bad message is an outcome, never an error. */
  async tap(req: { key_id?: string; picc_data?: string; cmac?: string }): Promise<TapResult> {
    const result = await this.judge(req);
    this.taps.inc({ outcome: result.outcome });
    return result;
  }

  private async judge(req: { key_id?: string; picc_data?: string; cmac?: string }): Promise<TapResult> {
    const msg = parseTap(req);
    if (!msg) return { outcome: 'malformed' };
    const key = await this.deps.store.key(msg.keyId);
    if (!key) return { outcome: 'unknown_tag' };
    const picc = decryptPiccData(await metaReadKey(key.master), msg.piccData);
    if (!picc) return { outcome: 'unknown_tag' };
    const tag = await this.deps.store.byUid(key.id, hexUpper(picc.uid));
    if (!tag) return { outcome: 'unknown_tag' };
    const seen = { tag, counter: picc.counter, lastCounter: tag.lastCounter };
    if (!(await macMatches(await fileReadKey(key.master, picc.uid), picc.uid, picc.counter, msg.cmac))) {
      await this.deps.store.recordBadSignature(tag.id, picc.counter);
      return { outcome: 'bad_signature', ...seen };
    }
    const taken = await this.deps.store.takeTap(tag.id, picc.counter);
    const out = { tag: taken.tag, counter: picc.counter, lastCounter: taken.lastCounter };
    if (taken.outcome !== 'genuine') {
      if (taken.outcome === 'replayed')
        this.deps.log.warn(
          { tag: tag.id, certificate: tag.certificateId, counter: picc.counter, last: taken.lastCounter },
          'nfc tag: replayed message (clone suspected)',
        );
      return { outcome: taken.outcome, ...out };
    }
    return {
      outcome: 'genuine',
      ...out,
      tapNumber: taken.tag.tapCount,
      verification: await this.deps.verify(tag.certificateId),
    };
  }
}
