// Certificate vouchers (unversioned surface): the public view page a voucher's URL points at
// (`/vouchers/:id`, server-rendered HTML with the verification page's strict CSP), its public
// JSON, and the claim by the recipient's user session, which moves the certificate's token to
// the recipient's own custodial wallet. `:id` is the voucher id (`v_…`) or its reference number
// (`HM-XXXX-XXXX-C`, forgiving of case, hyphens and O/0, I/1 mix-ups).
//
// The public routes use the rate group `public` (per client address); the claim uses
// `voucher_redeem` (claiming is redeeming a voucher), counted per enterprise for sessions.
import { issuerFrom } from '../../pages/issuer.js';
import { HallmarkError } from '@hallmark/kit';
import type { CertificateVoucher } from '@hallmark/proto/certificates/v1/vouchers';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  renderVoucherNotFoundPage,
  renderVoucherPage,
  renderVoucherUnavailablePage,
} from '../../pages/voucher.js';
import { sendPage } from '../../pages/shell.js';
import { principalOf, type RouteDeps } from '../shared.js';
import { verifyUrl } from '../verify/pages.js';

const TAGS = ['Certificate vouchers'];
const PUBLIC = { auth: 'public' as const, rateGroup: 'public' as const };
const CLAIM = { auth: 'session' as const, rateGroup: 'voucher_redeem' as const };
/** A claim waits (bounded) for the chain transfer to confirm. */
const CLAIM_DEADLINE_MS = 30_000;
/** A voucher id or a reference number as a person may type it. */
const ID_RE = /^[0-9A-Za-z_*~$=\- ]{1,64}$/;

const idParams = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 64, description: 'Voucher id (v_…) or reference number' },
  },
} as const;

/** The voucher as the API shows it (never its recipient's contact data). */
export function presentVoucher(v: CertificateVoucher) {
  return {
    id: v.id,
    url: v.url,
    referenceNumber: v.reference_number,
    metadata: JSON.parse(v.metadata_json || '{}') as Record<string, unknown>,
    certificateId: v.certificate_id,
    status: v.status,
    expiresAt: v.expires_at,
    createdAt: v.created_at,
    claimedAt: v.claimed_at ?? null,
    lineItemGid: v.line_item_gid ?? null,
    tokenId: v.token_id ?? null,
    transactionHash: v.transaction_hash ?? null,
    blockNumber: v.block_number ?? null,
    livemode: v.livemode,
  };
}

/**
 * The e-mail the request's session proves (its JWT `email` claim: a valid address, with
 * `email_verified` absent or the boolean true; auth/session.ts › provenEmail), or null. The claim compares it with the voucher's
 * recipient and refuses when the voucher has one and this is null.
 */
function sessionEmail(request: FastifyRequest): string | null {
  return request.auth?.kind === 'session' ? (request.auth.email ?? null) : null;
}

const notFound = (id: string) =>
  new HallmarkError('resource_not_found', { message: `No such voucher: '${id}'.` });

export default async function certificateVouchers(app: FastifyInstance, { clients, config }: RouteDeps) {
  const vouchers = clients.certificateVouchers;
  const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
  const claimUrl = (id: string) => `${base}/api/certificates/vouchers/${encodeURIComponent(id)}/claim`;

  app.get<{ Params: { id: string } }>(
    '/vouchers/:id',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'View page of a certificate voucher (HTML; no authentication)',
        params: idParams,
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (!ID_RE.test(id)) return sendPage(reply, 404, renderVoucherNotFoundPage(id));
      try {
        const view = await vouchers.getPublicVoucher({ voucher_id: id }, { idempotent: true });
        const v = view.voucher!;
        return sendPage(
          reply,
          200,
          renderVoucherPage(
            view,
            { verify: verifyUrl(base, v.certificate_id), claim: claimUrl(v.id) },
            issuerFrom(view.issuer),
          ),
        );
      } catch (err) {
        if (err instanceof HallmarkError && err.code === 'resource_not_found') {
          return sendPage(reply, 404, renderVoucherNotFoundPage(id));
        }
        request.log.warn({ err }, 'voucher page: read failed');
        return sendPage(reply, 503, renderVoucherUnavailablePage());
      }
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/certificates/vouchers/:id',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'Public read of a certificate voucher and its certificate (no authentication)',
        params: idParams,
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!ID_RE.test(id)) throw notFound(id);
      const view = await vouchers.getPublicVoucher({ voucher_id: id }, { idempotent: true });
      return {
        success: true,
        data: {
          voucher: presentVoucher(view.voucher!),
          certificate: JSON.parse(view.certificate_json) as Record<string, unknown>,
        },
      };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/certificates/vouchers/:id/claim',
    {
      config: CLAIM,
      schema: {
        tags: TAGS,
        summary:
          "Claim a voucher with the recipient's user session: its certificate moves to the recipient's wallet",
        description:
          'A user session only (an API key is refused). 200 when the chain transfer is confirmed, 202 while it ' +
          'is still on its way. The same recipient claiming again gets the same answer; a voucher claimed by ' +
          'someone else, expired, or whose certificate is still being minted or no longer with the issuer is ' +
          'refused (422); one whose certificate is in another pending hand-over (a gift or transfer) is 409 ' +
          '`resource_locked`; a voucher ' +
          "issued to another e-mail address than the session's is refused (403). A test-mode voucher is claimed " +
          'with `Hallmark-Mode: test`; a voucher of the other mode than the session is 404.',
        params: idParams,
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (!ID_RE.test(id)) throw notFound(id);
      const res = await vouchers.claimVoucher(
        {
          principal: principalOf(request),
          voucher_id: id,
          recipient_email: sessionEmail(request) ?? undefined,
        },
        { deadlineMs: CLAIM_DEADLINE_MS, idempotent: true },
      );
      const v = res.voucher!;
      return reply.status(res.transfer_status === 'confirmed' ? 200 : 202).send({
        success: true,
        data: {
          voucherId: v.id,
          status: res.transfer_status,
          voucherStatus: v.status,
          transactionHash: res.transaction_hash ?? null,
          blockNumber: res.block_number ?? null,
          toAddress: res.to_address,
          certificateId: v.certificate_id,
          replayed: res.replayed,
        },
      });
    },
  );
}
