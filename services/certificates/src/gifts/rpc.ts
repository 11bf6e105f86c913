// gRPC handlers of GiftService: proto <-> service calls, nothing else.
import { missingParam, scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { Gift, GiftServiceServer } from '@hallmark/proto/certificates/v1/gifts';
import { pageInfo } from '@hallmark/kit/page';
import type { PublicReadDeps } from '../rpc.js';
import { publicStatus, type GiftRecord } from './domain/gift.js';
import type { GiftService } from './service.js';

const DEFAULT_WAIT_MS = 25_000;
const MAX_WAIT_MS = 60_000;

export function giftToProto(g: GiftRecord, now = new Date()): Gift {
  return {
    id: g.id,
    certificate_id: g.certificateId,
    status: publicStatus(g, now),
    sender_address: g.senderAddress,
    expires_at: g.expiresAt.toISOString(),
    created_at: g.createdAt.toISOString(),
    transaction_hash: g.transactionHash ?? undefined,
    user_operation_hash: undefined,
    claimed_at: g.claimedAt?.toISOString(),
    recipient_address: g.recipientAddress ?? undefined,
    livemode: g.livemode,
    notification: g.notification,
    notification_error: g.notificationError ?? undefined,
  };
}

/** Who issued a certificate, as its metadata says (no enterprise display names exist yet). */
function claimedIssuerOf(metadata: Record<string, unknown>): string | undefined {
  for (const k of ['issuer', 'brand', 'artist']) {
    const v = metadata[k];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 200);
  }
  return undefined;
}

export function createGiftHandlers(
  service: GiftService,
  { issuerOf }: PublicReadDeps = {},
): AsyncHandlers<GiftServiceServer> {
  return {
    async createGift(req) {
      const scope = scopeOf(req.principal);
      const { gift, token } = await service.create(scope, req.principal!, {
        certificateId: req.certificate_id,
        recipientEmail: req.recipient_email,
        recipientPhone: req.recipient_phone,
        message: req.message,
        senderEmail: req.sender_email,
      });
      return { gift: giftToProto(gift), claim_token: token };
    },

    async resendGift(req) {
      if (!req.transfer_id) throw missingParam('transferId');
      const { gift, methods } = await service.resend(scopeOf(req.principal), req.transfer_id);
      return { status: publicStatus(gift, new Date()), method: methods.join(',') };
    },

    async revokeGift(req) {
      if (!req.transfer_id) throw missingParam('transferId');
      return giftToProto(await service.revoke(scopeOf(req.principal), req.transfer_id));
    },

    async getGift(req) {
      if (!req.transfer_id) throw missingParam('transferId');
      return giftToProto(await service.get(scopeOf(req.principal), req.transfer_id));
    },

    async listGifts(req) {
      const now = new Date();
      const { gifts, page, total } = await service.list(scopeOf(req.principal), {
        status: req.status,
        page: req.page,
      });
      return { gifts: gifts.map((g) => giftToProto(g, now)), page: pageInfo(page, total) };
    },

    async getGiftByToken(req) {
      const { gift, certificate, status } = await service.view(req.token);
      return {
        transfer_id: gift.id,
        kind: gift.kind,
        status,
        expires_at: gift.expiresAt.toISOString(),
        message: gift.message ?? undefined,
        certificate_id: certificate.id,
        certificate_name: certificate.name,
        image_url: certificate.imageUrl ?? undefined,
        issuer: claimedIssuerOf(certificate.metadata),
        issuer_profile: await issuerOf?.(certificate.enterpriseId),
      };
    },

    async claimGift(req) {
      const waitMs = req.wait_ms > 0 ? Math.min(req.wait_ms, MAX_WAIT_MS) : DEFAULT_WAIT_MS;
      const { gift, replayed } = await service.claim(req.principal, req.token, waitMs);
      return { gift: giftToProto(gift), replayed };
    },
  };
}
