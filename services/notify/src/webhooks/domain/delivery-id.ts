// A fan-out delivery's id, derived from its target and its event: the same (event, target)
// always gets the same id, so the primary key alone makes fan-out idempotent (a redelivered
// event inserts nothing) and no unique index of (target, event) has to be written with every
// version of the row (0203). Shaped like any `dlv_` id: prefix + 24 base62 characters.
import { ID_BODY_LENGTH, ID_PREFIXES } from '@hallmark/kit/ids';
import { createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `dlv_` + 24 base62 characters of SHA-256(target id, event id). A byte modulo 62 is slightly
 * uneven, which leaves ~140 bits: collisions are out of reach, as with random ids. Target ids
 * are unique across kinds (`webhook_`, `wh_`, `lsn_` prefixes), so the kind is not hashed.
 */
export function deliveryIdFor(targetId: string, eventId: string): string {
  const digest = createHash('sha256').update(targetId).update('\0').update(eventId).digest();
  let body = '';
  for (let i = 0; i < ID_BODY_LENGTH; i++) body += ALPHABET[digest[i]! % 62];
  return ID_PREFIXES.delivery + body;
}
