// `hallmark webhooks …`: versioned webhook endpoints, their deliveries, test sends and secret
// rotation. (`hallmark listen` is its own command file.)
import { Command } from 'commander';
import { Ctx, details, table } from '../context.js';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const int = (v: string) => Number.parseInt(v, 10);

export function webhooksCommand(): Command {
  const webhooks = new Command('webhooks').description(
    'Webhook endpoints: create, list, deliveries, retry, test, rotate-secret',
  );

  webhooks
    .command('create')
    .description('Create an endpoint (HTTPS); its whsec_ secret is shown once')
    .requiredOption('--url <url>', 'where events are POSTed')
    .requiredOption('--events <types>', 'comma-separated event types, e.g. transaction.completed', list)
    .option('--description <text>')
    .option('--secret <secret>', 'your own secret (default: generated)')
    .action(async (o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const w = await ctx.client().post('/api/v1/webhooks', {
        body: {
          url: o.url,
          events: o.events,
          ...(o.description ? { description: o.description } : {}),
          ...(o.secret ? { secret: o.secret } : {}),
        },
      });
      ctx.print(w, () => details(w as never));
    });

  webhooks
    .command('list')
    .description('List endpoints')
    .option('--page <n>', 'page number', int, 1)
    .option('--limit <n>', 'per page (max 100)', int, 20)
    .action(async (o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx
        .client()
        .get('/api/v1/webhooks', { params: { query: { page: o.page, limit: o.limit } } });
      ctx.print(r, () =>
        table(
          ['id', 'url', 'events', 'status', 'created'],
          r.webhooks.map((w) => [w.id, w.url, w.events.join(' '), w.status, w.created_at]),
        ),
      );
    });

  webhooks
    .command('deliveries')
    .description("An endpoint's deliveries, newest first, with each attempt's answer")
    .argument('<webhookId>')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--page <n>', 'page number', int, 1)
    .option('--limit <n>', 'per page (max 100)', int, 20)
    .action(async (id: string, o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().get('/api/v1/webhooks/{webhook_id}/deliveries', {
        params: {
          path: { webhook_id: id },
          query: { page: o.page, limit: o.limit, ...(o.status ? { status: o.status } : {}) },
        },
      });
      ctx.print(r, () =>
        table(
          ['delivery', 'event', 'status', 'attempts', 'last answer', 'created'],
          r.deliveries.map((d: Record<string, any>) => [
            d.id,
            d.event_type,
            d.status,
            d.attempts?.length ?? d.attempt_count,
            d.attempts?.at(-1)?.response_status ?? d.attempts?.at(-1)?.error ?? '',
            d.created_at,
          ]),
        ),
      );
    });

  webhooks
    .command('retry')
    .description('Send a delivery again now')
    .argument('<webhookId>')
    .argument('<deliveryId>')
    .action(async (id: string, deliveryId: string, _o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().post('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
        params: { path: { webhook_id: id, delivery_id: deliveryId } },
      });
      ctx.print(r, () => details(r as never));
    });

  webhooks
    .command('test')
    .description('Send a signed test event to an endpoint')
    .argument('<webhookId>')
    .option('--event <type>', 'event type of the test event')
    .action(async (id: string, o: { event?: string }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().post('/api/v1/webhooks/{webhook_id}/test', {
        params: { path: { webhook_id: id } },
        body: o.event ? { event_type: o.event } : {},
      });
      ctx.print(r, () => details(r as never));
    });

  webhooks
    .command('rotate-secret')
    .description('Issue a new signing secret (both sign during the overlap)')
    .argument('<webhookId>')
    .option('--overlap <seconds>', 'how long the old secret keeps signing too', int)
    .action(async (id: string, o: { overlap?: number }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().post('/api/v1/webhooks/{webhook_id}/rotate-secret', {
        params: { path: { webhook_id: id } },
        body: o.overlap === undefined ? {} : { overlap_seconds: o.overlap },
      });
      ctx.print(r, () => details(r as never));
    });

  return webhooks;
}
