// /api/v1/certificates/:certificate_id/tags: register an NTAG 424 DNA tag for a certificate
// (the answer carries the URL template to program and the tag's keys encrypted to the
// programming station's RSA key), list a certificate's tags, revoke one.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, list, str, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { DELETE, NfcTag, presentTag, READ, TAGS, UPDATE } from './tag.js';

const certificateParams = Type.Object({ certificate_id: str(64) });

export const registerNfcTag = defineEndpoint({
  method: 'POST',
  url: '/api/v1/certificates/:certificate_id/tags',
  operationId: 'registerNfcTag',
  tags: TAGS,
  summary: 'Register an NFC tag for a certificate',
  description:
    'Binds an NTAG 424 DNA tag (its UID) to a certificate of your enterprise and mode; a certificate may have ' +
    'several. The answer has the URL template to write into the tag with SUN mirroring and the tag’s five AES ' +
    'keys, encrypted with RSA-OAEP (SHA-256) to `programming_public_key` — Hallmark never sends them in clear ' +
    '(docs/nfc-tags.md). A UID already registered and not revoked is 409.',
  access: UPDATE,
  params: certificateParams,
  body: closed({
    uid: str(32, 'The tag’s 7-byte UID as 14 hex digits (colons or spaces allowed)'),
    programming_public_key: str(
      8192,
      'The programming station’s RSA public key (PEM, ≥ 2048 bits); the tag keys are encrypted to it',
    ),
  }),
  responses: {
    201: {
      description: 'The tag, its URL template and its keys encrypted to the station',
      schema: Type.Object({
        tag: NfcTag,
        url_template: str(2048, 'Write into the NDEF file; the tag fills {PICC} (32 hex) and {MAC} (16 hex)'),
        key_id: str(64, 'The enterprise key the URL names'),
        encrypted_keys: str(2048, 'Base64 RSA-OAEP-SHA256 of keys 0–4, 16 bytes each, key 0 first'),
        keys_encryption: Type.Literal('RSA-OAEP-256'),
      }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.tags.registerTag({
      principal: principalOf(request),
      certificate_id: request.params.certificate_id,
      uid: request.body.uid,
      programming_public_key: request.body.programming_public_key,
    });
    return {
      tag: presentTag(res.tag!),
      url_template: res.url_template,
      key_id: res.key_id,
      encrypted_keys: res.encrypted_keys,
      keys_encryption: 'RSA-OAEP-256' as const,
    };
  },
});

export const listNfcTags = defineEndpoint({
  method: 'GET',
  url: '/api/v1/certificates/:certificate_id/tags',
  operationId: 'listNfcTags',
  tags: TAGS,
  summary: 'List the NFC tags of a certificate (active and revoked, newest first)',
  access: READ,
  params: certificateParams,
  responses: {
    200: { description: 'The certificate’s tags', schema: Type.Object({ tags: list(NfcTag, 1000) }) },
  },
  handler: async (request, { clients }) => {
    const res = await clients.tags.listTags(
      { principal: principalOf(request), certificate_id: request.params.certificate_id },
      { idempotent: true },
    );
    return { tags: res.tags.map(presentTag) };
  },
});

export const revokeNfcTag = defineEndpoint({
  method: 'DELETE',
  url: '/api/v1/certificates/:certificate_id/tags/:tag_id',
  operationId: 'revokeNfcTag',
  tags: TAGS,
  summary: 'Revoke an NFC tag: its taps say "This tag was revoked" from now on',
  access: DELETE,
  params: Type.Object({ certificate_id: str(64), tag_id: str(64) }),
  responses: {
    200: { description: 'The revoked tag (revoking again answers it unchanged)', schema: NfcTag },
  },
  handler: async (request, { clients }) =>
    presentTag(
      await clients.tags.revokeTag(
        {
          principal: principalOf(request),
          certificate_id: request.params.certificate_id,
          tag_id: request.params.tag_id,
        },
        { idempotent: true },
      ),
    ),
});
