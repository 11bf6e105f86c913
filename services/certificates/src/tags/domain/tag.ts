// Tag rules without I/O: what a UID and a tap's parameters must look like, the decision a
// tap's counter makes against the tag's state, and the URL template a tag is programmed with.
import { invalidParam, missingParam } from '@hallmark/kit/errors';
import { isId } from '@hallmark/kit/ids';

export type TagStatus = 'active' | 'revoked';

export interface TagRecord {
  id: string;
  keyId: string;
  enterpriseId: string;
  livemode: boolean;
  certificateId: string;
  /** 14 upper-case hex digits. */
  uid: string;
  /** The highest SDMReadCtr accepted; -1 before the first tap. */
  lastCounter: number;
  tapCount: number;
  lastTapAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export const statusOf = (t: Pick<TagRecord, 'revokedAt'>): TagStatus => (t.revokedAt ? 'revoked' : 'active');

/** What a tap came to. `malformed` and `unknown_tag` name no tag; the others do. */
export type TapOutcome = 'genuine' | 'replayed' | 'bad_signature' | 'revoked' | 'unknown_tag' | 'malformed';

/**
 * A UID as brands write it (`04:A1:B2…`, `04 a1 b2 …`, `04A1B2…`): 7 bytes, normalised to
 * upper-case hex. All zero is refused: it is the "no UID" of the meta read key's input.
 */
export function parseUid(raw: string | undefined): string {
  if (!raw) throw missingParam('uid');
  const uid = raw.replace(/[\s:-]/g, '').toUpperCase();
  if (!/^[0-9A-F]{14}$/.test(uid))
    throw invalidParam('uid', 'uid must be the tag’s 7-byte UID as 14 hex digits (e.g. 04A1B2C3D4E5F6).');
  if (/^0+$/.test(uid)) throw invalidParam('uid', 'uid cannot be all zero.');
  return uid;
}

export interface TapMessage {
  keyId: string;
  piccData: Buffer;
  cmac: Buffer;
}

/** A tap's parameters as the tag wrote them, or null when they are not a SUN message. */
export function parseTap(req: { key_id?: string; picc_data?: string; cmac?: string }): TapMessage | null {
  const { key_id: keyId, picc_data: picc, cmac } = req;
  if (!isId('nfcTagKey', keyId)) return null;
  if (!picc || !/^[0-9A-Fa-f]{32}$/.test(picc) || !cmac || !/^[0-9A-Fa-f]{16}$/.test(cmac)) return null;
  return { keyId, piccData: Buffer.from(picc, 'hex'), cmac: Buffer.from(cmac, 'hex') };
}

/**
 * What a correctly signed message's counter makes of the tag (decided under the tag's row
 * lock): a revoked tag fails, a counter not above the last accepted is a replay — the same
 * message again, or a copy of one read off the tag — and anything else is this tag's next tap.
 */
export function tapDecision(tag: Pick<TagRecord, 'revokedAt' | 'lastCounter'>, counter: number) {
  if (tag.revokedAt) return 'revoked' as const;
  if (counter <= tag.lastCounter) return 'replayed' as const;
  return 'genuine' as const;
}

/** The URL a tag mirrors its SUN message into; {PICC} and {MAC} are where the tag writes. */
export function urlTemplate(publicUrl: string, keyId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/t/${keyId}?picc_data={PICC}&cmac={MAC}`;
}
