// gRPC handlers of TagService (proto/hallmark/certificates/v1/tags.proto): proto ↔ service.
import { missingParam, scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { Tag, TagServiceServer } from '@hallmark/proto/certificates/v1/tags';
import { statusOf, type TagRecord } from './domain/tag.js';
import type { TagService } from './service.js';

export function tagToProto(t: TagRecord): Tag {
  return {
    id: t.id,
    certificate_id: t.certificateId,
    uid: t.uid,
    status: statusOf(t),
    tap_count: t.tapCount,
    last_counter: t.lastCounter >= 0 ? t.lastCounter : undefined,
    last_tap_at: t.lastTapAt?.toISOString(),
    created_at: t.createdAt.toISOString(),
    revoked_at: t.revokedAt?.toISOString(),
    livemode: t.livemode,
  };
}

export function createTagHandlers(tags: TagService): AsyncHandlers<TagServiceServer> {
  return {
    async registerTag(req) {
      const r = await tags.register(scopeOf(req.principal), {
        certificateId: req.certificate_id,
        uid: req.uid,
        programmingPublicKey: req.programming_public_key,
      });
      return {
        tag: tagToProto(r.tag),
        url_template: r.urlTemplate,
        encrypted_keys: r.encryptedKeys,
        key_id: r.keyId,
      };
    },

    async listTags(req) {
      if (!req.certificate_id) throw missingParam('certificate_id');
      return { tags: (await tags.list(scopeOf(req.principal), req.certificate_id)).map(tagToProto) };
    },

    async revokeTag(req) {
      if (!req.tag_id) throw missingParam('tag_id');
      return tagToProto(await tags.revoke(scopeOf(req.principal), req.certificate_id, req.tag_id));
    },

    async tap(req) {
      const r = await tags.tap(req);
      return {
        outcome: r.outcome,
        tag_id: r.tag?.id,
        certificate_id: r.tag?.certificateId,
        counter: r.counter,
        last_counter: r.lastCounter !== undefined && r.lastCounter >= 0 ? r.lastCounter : undefined,
        tap_number: r.tapNumber,
        verification: r.verification,
      };
    },
  };
}
