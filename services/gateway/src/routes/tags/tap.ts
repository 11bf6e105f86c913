// The tap page (public, rate group `verify_page`): what an NTAG 424 DNA tag's URL opens,
// `/t/:key_id?picc_data=<PICCData>&cmac=<SDMMAC>`. One call judges the message (decrypt,
// signature, counter taken atomically) and, when genuine, carries the certificate's
// verification; the page names the outcome. Never cached: a tap's message is used once.
import { defineEndpoint } from '../../endpoint/define.js';
import { str, Type } from '../../endpoint/schema.js';
import { explorerOf } from '../../pages/explorers.js';
import { issuerFrom } from '../../pages/issuer.js';
import { sendPage } from '../../pages/shell.js';
import { renderTapPage, renderTapUnavailablePage, TAP_STATUS } from '../../pages/tap.js';
import { TAGS } from './tag.js';

const page = (description: string) => ({ description, contentType: 'text/html' });

export const getTapPage = defineEndpoint({
  method: 'GET',
  url: '/t/:key_id',
  operationId: 'getTapPage',
  tags: TAGS,
  summary: 'Tap to verify: the page an NFC tag opens (HTML; no authentication)',
  description:
    'The tag writes a fresh encrypted, signed message into this URL on every tap (NXP SUN). A genuine tap ' +
    'shows the certificate’s verification under “Genuine tag, tap N”; a message seen before (a replay or a ' +
    'copy), a wrong signature, a revoked or unknown tag get a page that says so. A replay also sends the ' +
    '`certificate.tag_clone_suspected` webhook.',
  access: { auth: 'public', rateGroup: 'verify_page' },
  params: Type.Object({ key_id: str(64) }),
  querystring: Type.Object({
    picc_data: Type.Optional(str(64, 'PICCData: 32 hex digits')),
    cmac: Type.Optional(str(32, 'SDMMAC: 16 hex digits')),
  }),
  responses: {
    200: page('Genuine tag: the certificate’s verification page'),
    400: page('Not a complete tag message, or the tag’s signature is wrong (page)'),
    404: page('Unknown tag (page)'),
    409: page('The message was already used: a replay or a copy (page)'),
    410: page('The tag was revoked (page)'),
  },
  handler: async (request, { clients, config, reply }) => {
    try {
      const r = await clients.tags.tap(
        {
          key_id: request.params.key_id,
          picc_data: request.query.picc_data ?? '',
          cmac: request.query.cmac ?? '',
        },
        { deadlineMs: 10_000 },
      );
      const issuer = issuerFrom(r.verification?.certificate?.issuer);
      return sendPage(
        reply,
        TAP_STATUS[r.outcome] ?? 404,
        renderTapPage(r, issuer, explorerOf(config), config.HALLMARK_PUBLIC_URL),
      );
    } catch (err) {
      request.log.warn({ err }, 'tap page: the tap could not be judged');
      return sendPage(reply, 503, renderTapUnavailablePage());
    }
  },
});
