// An NFC tag's public shape (tap to verify, docs/nfc-tags.md), defined once: the registry's
// endpoints answer with it, the document shows it as the `NfcTag` component.
import type { Tag } from '@hallmark/proto/certificates/v1/tags';
import type { Access } from '../../endpoint/define.js';
import { defineResource } from '../../endpoint/resource.js';
import { bool, int, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';

export const TAGS = ['NFC tags'];
/** Registering and revoking a tag updates an issued certificate (as its warranty does). */
export const UPDATE: Access = { auth: 'either', scope: 'transactions.update' };
export const READ: Access = { auth: 'either', scope: 'transactions.read' };
export const DELETE: Access = { auth: 'either', scope: 'transactions.delete' };

export const NfcTag = defineResource(
  'NfcTag',
  Type.Object(
    {
      id: Type.String({ pattern: '^tag_', maxLength: 64 }),
      certificate_id: str(64),
      uid: Type.String({
        pattern: '^[0-9A-F]{14}$',
        maxLength: 14,
        description: 'The 7-byte UID, upper-case hex',
      }),
      status: oneOf(['active', 'revoked']),
      tap_count: int('Genuine taps so far'),
      last_counter: nullable(int('The highest tap counter (SDMReadCtr) accepted; null before the first tap')),
      last_tap_at: nullable(time),
      created_at: time,
      revoked_at: nullable(time),
      livemode: bool,
    },
    { description: 'An NTAG 424 DNA tag bound to a certificate (tap to verify)' },
  ),
  {
    example: {
      id: 'tag_4Q2m9XbT7cLp0aZ1yN8kVw3e',
      certificate_id: 'cert_8aK2mQ7pL0xN4vB9cR1tY6wZ',
      uid: '04A1B2C3D4E5F6',
      status: 'active',
      tap_count: 3,
      last_counter: 7,
      last_tap_at: '2026-11-29T10:15:00.000Z',
      created_at: '2026-11-20T09:00:00.000Z',
      revoked_at: null,
      livemode: true,
    },
  },
);

export function presentTag(t: Tag): Static<typeof NfcTag> {
  return {
    id: t.id,
    certificate_id: t.certificate_id,
    uid: t.uid,
    status: t.status as 'active' | 'revoked',
    tap_count: t.tap_count,
    last_counter: t.last_counter ?? null,
    last_tap_at: t.last_tap_at ?? null,
    created_at: t.created_at,
    revoked_at: t.revoked_at ?? null,
    livemode: t.livemode,
  };
}
