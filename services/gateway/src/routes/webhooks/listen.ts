// GET /api/v1/listen: webhooks on a laptop (`hallmark listen`, after `stripe listen`). A
// Server-Sent Events stream of notify's Listen RPC: a listen session that is a subscription
// of its own in notify (its own delivery records), carrying each event's exact body and the
// headers its endpoint or subscription would get, signed with the session's secret (sent
// first, in the `session` event). Test mode unless asked (`mode=live`, a session or a live
// key); a key cannot change its mode. The session ends when the client disconnects.
import { HallmarkError } from '@hallmark/kit';
import type { ListenMessage } from '@hallmark/proto/notify/v1/webhooks';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, idParams, oneOf, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { DeliveriesQuery, DeliveryPage, pageOf, presentDeliveryPage } from './delivery.js';
import { ADMIN, TAGS } from './endpoints.js';

/** A comment line this often keeps proxies from closing an idle stream. */
export const LISTEN_PING_MS = 15_000;

const frame = (event: string, data: unknown, id?: string) =>
  `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The open streams of each HTTP server: closing the gateway ends them (clients reconnect elsewhere). */
const streams = new WeakMap<object, Set<AbortController>>();
const openOn = (server: object) => {
  let open = streams.get(server);
  if (!open) streams.set(server, (open = new Set()));
  return open;
};

/** Ends every listen stream `server` carries (the gateway's preClose). */
export function endListenStreams(server: object) {
  for (const a of streams.get(server) ?? []) a.abort();
}

export const listenToEvents = defineEndpoint({
  method: 'GET',
  url: '/api/v1/listen',
  operationId: 'listenToEvents',
  tags: TAGS,
  summary: 'Listen: receive webhook events as Server-Sent Events (`hallmark listen`)',
  description:
    'Opens a listen session: a subscription of its own to the enterprise’s events (versioned and ' +
    'enterprise types) in test mode, or live with `mode=live` (a session, or a live key). The ' +
    'first event, `session`, carries `{id, secret, livemode, events, created_at}`: `secret` ' +
    '(whsec_…) signs every later event. Each later event is named after the event type, with ' +
    '`id` the delivery id and `data` `{id, event_id, type, attempt, headers, body}`: `body` is the ' +
    'exact string an endpoint would receive and `headers` the exact headers (X-Service-Signature ' +
    'and webhook-* for versioned types, X-Webhook-* for enterprise types), so a receiver’s own ' +
    'verification code can be used as is. Lines starting with `:` are keep-alives. The session ' +
    'ends when the client disconnects; its deliveries are recorded in notify. At most ' +
    'HALLMARK_LISTEN_MAX_SESSIONS (default 10) sessions are open at once per enterprise: the next is 429 ' +
    '`concurrent_limit_exceeded` with `retry_after` (closing one frees its slot at once).',
  access: ADMIN,
  querystring: closed({
    events: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Comma-separated event types (versioned or enterprise); absent: every type',
      }),
    ),
    mode: Type.Optional(oneOf(['test', 'live'], 'Default: test (a key: its own mode)')),
  }),
  responses: {
    200: {
      description:
        'A Server-Sent Events stream: `session` first, then one event per delivery (see the description)',
      contentType: 'text/event-stream',
    },
  },
  handler: async (request, { clients, reply }) => {
    const auth = request.auth!;
    const principal = principalOf(request);
    const isKey = auth.kind === 'api_key';
    const mode = request.query.mode ?? (isKey && principal.livemode ? 'live' : 'test');
    const livemode = mode === 'live';
    if (isKey && principal.livemode !== livemode)
      throw new HallmarkError('parameter_invalid', {
        param: 'mode',
        message: `This key works in ${principal.livemode ? 'live' : 'test'} mode; use a ${mode} key or a session.`,
      });
    const events = (request.query.events ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);

    const abort = new AbortController();
    const messages = clients.webhookStreams.listen(
      { principal: { ...principal, livemode }, events },
      { signal: abort.signal },
    );
    const stream = messages[Symbol.asyncIterator]();
    // The first message decides the answer: a refusal (an unknown type) is still an error
    // in the envelope, not a stream.
    let first: IteratorResult<ListenMessage>;
    try {
      first = await stream.next();
    } catch (err) {
      abort.abort();
      throw err;
    }
    if (first.done || !first.value.session) {
      abort.abort();
      throw new HallmarkError('service_unavailable', { message: 'The listen session did not open.' });
    }

    const open = openOn(request.server.server);
    open.add(abort);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    const gone = () => abort.abort();
    request.raw.on('close', gone);
    raw.on('close', gone);
    const ping = setInterval(() => raw.write(': ping\n\n'), LISTEN_PING_MS);
    try {
      raw.write(frame('session', first.value.session));
      for (let next = await stream.next(); !next.done; next = await stream.next()) {
        const e = next.value.event;
        if (!e) continue;
        const data = {
          id: e.delivery_id,
          event_id: e.event_id,
          type: e.event_type,
          attempt: e.attempt,
          headers: e.headers,
          body: e.body,
        };
        if (!raw.write(frame(e.event_type, data, e.delivery_id)))
          await new Promise((r) => raw.once('drain', r));
      }
    } catch (err) {
      if (!abort.signal.aborted) {
        const code = err instanceof HallmarkError ? err.code : 'internal_error';
        raw.write(frame('error', { code, request_id: request.id }));
        request.log.warn({ err }, 'listen stream broke');
      }
    } finally {
      clearInterval(ping);
      open.delete(abort);
      abort.abort();
      raw.end();
    }
  },
});

export const listListenDeliveries = defineEndpoint({
  method: 'GET',
  url: '/api/v1/listen/sessions/:session_id/deliveries',
  operationId: 'listListenDeliveries',
  tags: TAGS,
  summary: 'Deliveries of a listen session (open or ended) with their attempts, newest first',
  description:
    'What the session was sent, and what it missed once its listener had gone (`failed`, error ' +
    '`no listener connected…`). `webhook_id` is the session id (lsn_…).',
  access: ADMIN,
  params: idParams('session_id'),
  querystring: DeliveriesQuery,
  responses: {
    200: {
      description: 'A page of the session’s deliveries, newest first',
      schema: Type.Object(DeliveryPage),
    },
  },
  handler: async (request, { clients }) =>
    presentDeliveryPage(
      await clients.webhooks.listListenDeliveries(
        { principal: principalOf(request), session_id: request.params.session_id, ...pageOf(request.query) },
        { idempotent: true },
      ),
    ),
});
