// GET /api/certificates/gifts (issue 34): the enterprise's gifts, newest first, each as the
// read of one gift shows it (no recipient contact data: it is stored encrypted and only ever
// decrypted to send the claim link). One call to GiftService.ListGifts, scoped to the
// caller's enterprise and mode.
import { defineEndpoint, type Access } from '../../endpoint/define.js';
import { closed, list, oneOf, Type, wrapped } from '../../endpoint/schema.js';
import { ApiPagination, apiPageOf, apiPageQuery, presentApiPagination } from '../pagination.js';
import { principalOf } from '../shared.js';
import { giftSchema, presentGift, TAGS } from './common.js';

/** Who may read one gift (the sender's scopes), and keys that only read transactions. */
const LIST: Access = { auth: 'either', scope: ['transactions.read', 'transactions.create'] };

export const listGifts = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/gifts',
  operationId: 'listGifts',
  tags: TAGS,
  summary: 'The enterprise’s gifts, newest first',
  description:
    'Each as `GET /api/certificates/gift/{transferId}` shows it; `status` keeps one status (`pending` leaves ' +
    'out gifts past their expiry, which are about to be removed). Resales are not listed (see their own ' +
    'reads). `{success, data:{gifts, pagination:{page, limit, totalPages, totalItems}}}`.',
  access: LIST,
  querystring: closed({
    status: Type.Optional(oneOf(['pending', 'claiming', 'claimed', 'revoked'])),
    ...apiPageQuery,
  }),
  responses: {
    200: {
      description: 'A page of gifts, newest first',
      schema: wrapped(
        Type.Object(
          { gifts: list(giftSchema, 100), pagination: ApiPagination },
          { additionalProperties: false },
        ),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const page = apiPageOf(request.query);
    const res = await clients.gifts.listGifts(
      { principal: principalOf(request), status: request.query.status, page },
      { idempotent: true },
    );
    return {
      success: true as const,
      data: { gifts: res.gifts.map(presentGift), pagination: presentApiPagination(res.page, page) },
    };
  },
});
