// `hallmark vouchers …`: discount vouchers (codes that lower an order's price).
import { lists, type Schemas } from '@hallmark/client';
import { Command, Option } from 'commander';
import { Ctx, details, table } from '../context.js';

const int = (v: string) => Number.parseInt(v, 10);

export function vouchersCommand(): Command {
  const vouchers = new Command('vouchers').description(
    'Discount vouchers: create, list, get, redeem, validate, rollback',
  );

  vouchers
    .command('create')
    .description('Create a voucher')
    .requiredOption('--code <code>', '4–32 letters and digits')
    .addOption(new Option('--type <type>').choices(['percentage', 'fixed_amount']).makeOptionMandatory())
    .requiredOption(
      '--value <n>',
      '1–100 for percentage (up to two decimals, e.g. 12.5); minor units for fixed_amount',
      Number,
    )
    .option('--max-uses <n>', 'redemptions allowed (default unlimited)', int)
    .option('--expires-at <iso>', 'expiry (ISO 8601)')
    .option('--description <text>', 'internal note')
    .action(async (o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const v = await ctx.client().post('/api/v1/vouchers', {
        body: {
          code: o.code,
          type: o.type,
          value: o.value,
          ...(o.maxUses === undefined ? {} : { max_uses: o.maxUses }),
          ...(o.expiresAt ? { expires_at: o.expiresAt } : {}),
          ...(o.description ? { description: o.description } : {}),
        },
      });
      ctx.print(v, () => details(v as never));
    });

  vouchers
    .command('list')
    .description('List vouchers, newest first')
    .addOption(new Option('--status <status>').choices(['active', 'expired', 'used', 'inactive']))
    .option('--page <n>', 'page number', int, 1)
    .option('--limit <n>', 'per page (max 100)', int, 20)
    .option('--all', 'every page (--json prints one array of vouchers)')
    .action(async (o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const hm = ctx.client();
      const rows = (
        vs: {
          id: string;
          code: string;
          type: string;
          value: number;
          status: string;
          uses_remaining?: number | null;
          expires_at?: string | null;
        }[],
      ) =>
        table(
          ['id', 'code', 'type', 'value', 'status', 'uses left', 'expires'],
          vs.map((v) => [v.id, v.code, v.type, v.value, v.status, v.uses_remaining ?? '∞', v.expires_at]),
        );
      if (o.all) {
        const all: Schemas['Voucher'][] = [];
        for await (const v of lists(hm).vouchers(o.status ? { status: o.status } : {})) all.push(v);
        ctx.print(all, () => rows(all as never));
        return;
      }
      const r = await hm.get('/api/v1/vouchers', {
        params: { query: { page: o.page, limit: o.limit, ...(o.status ? { status: o.status } : {}) } },
      });
      ctx.print(r, () => {
        rows(r.vouchers as never);
        console.log(
          `page ${r.pagination.page} of ${r.pagination.total_pages} (${r.pagination.total} vouchers)`,
        );
      });
    });

  vouchers
    .command('get')
    .description('Show a voucher')
    .argument('<voucherId>')
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const v = await ctx
        .client()
        .get('/api/v1/vouchers/{voucher_id}', { params: { path: { voucher_id: id } } });
      ctx.print(v, () => details(v as never));
    });

  for (const [name, what] of [
    ['redeem', 'Redeem a code against an order'],
    ['validate', 'Check what a redemption would give, without redeeming'],
  ] as const) {
    vouchers
      .command(name)
      .description(what)
      .argument('<code>')
      .option('--order <orderId>', 'the order id (also --order-id, the API’s name)')
      .addOption(new Option('--order-id <orderId>').hideHelp())
      .option(
        '--amount <n>',
        'order amount in minor units (without it: see the discount rule in --help)',
        int,
      )
      .addHelpText(
        'after',
        '\nWithout --amount a fixed_amount voucher discounts its value; a percentage voucher records the use\n' +
          'and leaves the discount to you (value % of your order): discount_applied is null.',
      )
      .option('--currency <code>', 'three-letter currency')
      .option('--customer <id>', 'customer id (per-customer limits)')
      .action(async (code: string, o, cmd: Command) => {
        const ctx = Ctx.of(cmd);
        const body = {
          code,
          order_id: orderOf(o, cmd),
          ...(o.amount === undefined ? {} : { amount: o.amount }),
          ...(o.currency ? { currency: o.currency } : {}),
          ...(o.customer ? { customer_id: o.customer } : {}),
        };
        const hm = ctx.client();
        const r =
          name === 'redeem'
            ? await hm.post('/api/v1/vouchers/redeem', { body })
            : await hm.post('/api/v1/vouchers/validate', { body });
        const note = name === 'validate' ? ' (not redeemed)' : '';
        ctx.print(r, () =>
          console.log(
            r.original_amount !== null && r.final_amount !== null
              ? `${code}: ${r.original_amount} − ${r.discount_applied} = ${r.final_amount}${note}`
              : r.discount_applied !== null
                ? `${code}: discount ${r.discount_applied}${note}`
                : `${code}: ${r.voucher?.value}% off your order${note}`,
          ),
        );
      });
  }

  vouchers
    .command('rollback')
    .description('Give back the use an order consumed (e.g. a refund); idempotent')
    .argument('<voucherId>', 'the voucher (vouch_…)')
    .option('--order <orderId>', 'the order whose redemption is rolled back (also --order-id)')
    .addOption(new Option('--order-id <orderId>').hideHelp())
    .action(async (voucherId: string, o: { order?: string; orderId?: string }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const orderId = orderOf(o, cmd);
      const r = await ctx.client().post('/api/v1/vouchers/{voucher_id}/redemptions/{order_id}/rollback', {
        params: { path: { voucher_id: voucherId, order_id: orderId } },
      });
      ctx.print(r, () =>
        console.log(
          r.already_rolled_back
            ? `${r.voucher.code}: order ${orderId} was already rolled back.`
            : `${r.voucher.code}: order ${orderId} rolled back; uses left ${r.voucher.uses_remaining ?? '∞'}.`,
        ),
      );
    });

  return vouchers;
}

/** `--order` or `--order-id` (the API's field is order_id): exactly one order, else a usage error (exit 2). */
function orderOf(o: { order?: string; orderId?: string }, cmd: Command): string {
  if (o.order && o.orderId && o.order !== o.orderId)
    cmd.error('error: --order and --order-id name different orders');
  const order = o.order ?? o.orderId;
  if (!order) cmd.error("error: required option '--order <orderId>' not specified");
  return order;
}
