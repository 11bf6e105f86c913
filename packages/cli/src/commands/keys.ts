// `hallmark keys …`: API keys on the versioned surface (needs a session or an admin.* key).
import { Command, Option } from 'commander';
import { Ctx, details, table } from '../context.js';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function keysCommand(): Command {
  const keys = new Command('keys').description('API keys: create, list, rotate, revoke, usage, audit logs');

  keys
    .command('create')
    .description('Create a key (its secret is shown once)')
    .requiredOption('--name <name>', 'a descriptive name')
    .addOption(
      new Option('--type <type>', 'key type').choices(['production', 'test', 'restricted']).default('test'),
    )
    .option(
      '--permissions <scopes>',
      'comma-separated scopes, e.g. transactions.read,transactions.create',
      list,
      [],
    )
    .option('--rate-limit <n>', 'requests per minute', (v) => Number(v))
    .option('--expires-at <iso>', 'expiry (ISO 8601)')
    .action(async (o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const k = await ctx.client().post('/api/v1/api-keys', {
        body: {
          name: o.name,
          type: o.type,
          permissions: o.permissions,
          ...(o.rateLimit ? { rateLimit: o.rateLimit } : {}),
          ...(o.expiresAt ? { expiresAt: o.expiresAt } : {}),
        },
      });
      ctx.print(k, () => {
        details(k as never);
        console.error('\nThe key is shown only once: store it now.');
      });
    });

  keys
    .command('list')
    .description('List keys')
    .action(async (_o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().get('/api/v1/api-keys');
      ctx.print(r, () =>
        table(
          ['id', 'name', 'type', 'status', 'permissions', 'last used'],
          r.apiKeys.map((k) => [
            k.id,
            k.name,
            k.type,
            k.status,
            (k.permissions ?? []).join(' '),
            k.lastUsedAt,
          ]),
        ),
      );
    });

  for (const [name, what] of [
    ['get', 'Show a key'],
    ['revoke', 'Revoke a key (cannot be undone)'],
  ] as const) {
    keys
      .command(name)
      .description(what)
      .argument('<keyId>')
      .action(async (id: string, _o, cmd: Command) => {
        const ctx = Ctx.of(cmd);
        const params = { params: { path: { key_id: id } } };
        const r =
          name === 'get'
            ? await ctx.client().get('/api/v1/api-keys/{key_id}', params)
            : await ctx.client().delete('/api/v1/api-keys/{key_id}', params);
        ctx.print(r, () => details(r as never));
      });
  }

  keys
    .command('rotate')
    .description('Issue a new secret for a key (the old one works during the grace period)')
    .argument('<keyId>')
    .option('--grace <seconds>', 'how long the old secret keeps working', (v) => Number(v))
    .action(async (id: string, o: { grace?: number }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().post('/api/v1/api-keys/{key_id}/rotate', {
        params: { path: { key_id: id } },
        body: o.grace === undefined ? {} : { gracePeriodSeconds: o.grace },
      });
      ctx.print(r, () => details(r as never));
    });

  keys
    .command('usage')
    .description("A key's request statistics")
    .argument('<keyId>')
    .addOption(new Option('--period <period>').choices(['24h', '7d', '30d']).default('7d'))
    .action(async (id: string, o: { period: '24h' | '7d' | '30d' }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx.client().get('/api/v1/api-keys/{key_id}/usage', {
        params: { path: { key_id: id }, query: { period: o.period } },
      });
      ctx.print(r, () => {
        console.log(
          `${r.keyId} over ${r.period}: ${r.totalRequests} requests, ${r.successfulRequests} ok, ${r.failedRequests} failed, ${r.averageLatency} ms average`,
        );
        if (r.endpoints.length)
          table(
            ['method', 'path', 'requests', 'avg ms'],
            r.endpoints.map((e) => [e.method, e.path, e.requests, e.avgLatency]),
          );
      });
    });

  keys
    .command('audit')
    .description("A key's audit log")
    .argument('<keyId>')
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const r = await ctx
        .client()
        .get('/api/v1/api-keys/{key_id}/audit-logs', { params: { path: { key_id: id } } });
      ctx.print(r, () =>
        table(
          ['timestamp', 'action', 'user', 'ip', 'endpoint', 'status'],
          r.logs.map((l: Record<string, unknown>) => [
            l.timestamp,
            l.action,
            l.userId,
            l.ipAddress,
            l.endpoint,
            l.statusCode,
          ]),
        ),
      );
    });

  return keys;
}
