// The side effects of the paid-order workflow, one method per durable step: read the order
// and build its job, create the job in bulk (adopting an existing one on 409), read the
// job's outcome, and fulfil. Each step is safe to repeat (see workflows/order-paid.ts).
import { counter, HallmarkError, type AsyncClient, type Logger } from '@hallmark/kit';
import type { BulkServiceClient } from '@hallmark/proto/bulk/v1/bulk';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { AdminApi } from '../admin-api/client.js';
import type { FulfilmentService } from '../fulfilment/service.js';
import { PROVISIONED_SCOPES } from '../install/service.js';
import type { InstallStore } from '../install/store.js';
import type { Cancellations } from './cancellation.js';
import { buildOrderForm, idempotencyKeyFor, MAX_UNITS } from './domain/order-form.js';
import { parseOrder } from './domain/webhook.js';
import type { OrdersStore } from './store.js';

/** Fulfilment attempts of paid orders by outcome: fulfilled, retry, failed (last attempt), skipped. */
const fulfilments = () =>
  counter(
    'hallmark_platform_fulfilment_attempts_total',
    'Order fulfilment attempts by outcome (fulfilled, retry, failed, skipped)',
    ['outcome'],
    {
      known: [{ outcome: 'fulfilled' }, { outcome: 'retry' }, { outcome: 'failed' }, { outcome: 'skipped' }],
    },
  );

export interface Plan {
  principal: Principal;
  bodyJson: string;
  idempotencyKey: string;
  autoFulfill: boolean;
}

const REFUSALS = new Set([
  'parameter_invalid',
  'parameter_missing',
  'parameter_unknown',
  'validation_failed',
  'malformed_json',
]);
const FINISHED = new Set(['completed', 'failed', 'cancelled']);
/** A synchronous order job mints on chain inside the call. */
const CREATE_DEADLINE_MS = 90_000;

export class OrderSteps {
  constructor(
    private readonly orders: OrdersStore,
    private readonly installs: InstallStore,
    private readonly admin: AdminApi,
    private readonly bulk: AsyncClient<BulkServiceClient>,
    private readonly fulfilment: FulfilmentService,
    private readonly cancellations: Cancellations,
    private readonly log: Logger,
  ) {
    fulfilments(); // every outcome at 0 from the start
  }

  async plan(shop: string, orderId: string): Promise<Plan | { skip: string }> {
    const integration = await this.installs.forShop(shop);
    if (!integration || integration.status !== 'active')
      return { skip: 'the shop has no active integration' };
    const order = await this.orders.get(shop, orderId);
    if (!order || order.status !== 'paid') return { skip: `the order is ${order?.status ?? 'unknown'}` };
    const parsed = parseOrder(order.payload);
    if (parsed.lines.length === 0) return { skip: 'the order has no line items' };
    if (parsed.lines.reduce((n, l) => n + l.quantity, 0) > MAX_UNITS)
      return { skip: `more than ${MAX_UNITS} units` };
    const token = await this.installs.accessToken(shop);
    if (!token) return { skip: 'the shop has uninstalled the app' };
    const productIds = [...new Set(parsed.lines.flatMap((l) => (l.productGid ? [l.productGid] : [])))];
    const products = await this.admin.products(shop, token, productIds);
    const form = buildOrderForm(shop, parsed, products, integration.mapping);
    return {
      principal: {
        enterprise_id: integration.enterpriseId,
        livemode: integration.livemode,
        actor_id: integration.apiKeyId ?? 'platform',
        actor_type: 'api_key',
        scopes: PROVISIONED_SCOPES,
      },
      bodyJson: JSON.stringify(form.body),
      idempotencyKey: idempotencyKeyFor(shop, parsed),
      autoFulfill: integration.autoFulfill,
    };
  }

  async createJob(shop: string, orderId: string, plan: Plan): Promise<{ jobId: string | null }> {
    let jobId: string;
    let status: string;
    try {
      const job = await this.bulk.createOrderJob(
        { principal: plan.principal, idempotency_key: plan.idempotencyKey, body_json: plan.bodyJson },
        { deadlineMs: CREATE_DEADLINE_MS },
      );
      jobId = job.id;
      status = job.status;
    } catch (err) {
      if (
        err instanceof HallmarkError &&
        err.code === 'resource_already_exists' &&
        typeof err.extras.existingJobId === 'string'
      ) {
        jobId = err.extras.existingJobId;
        status = String(err.extras.status ?? 'queued');
      } else if (err instanceof HallmarkError && REFUSALS.has(err.code)) {
        this.log.warn(
          { shop, orderId, code: err.code, param: err.param, message: err.message },
          'order: bulk refused the job',
        );
        await this.orders.setJob(shop, orderId, {
          jobId: '',
          jobStatus: `refused: ${err.message}`.slice(0, 300),
        });
        return { jobId: null };
      } else throw err;
    }
    await this.orders.setJob(shop, orderId, { jobId, jobStatus: status });
    return { jobId };
  }

  async jobOutcome(shop: string, orderId: string, plan: Plan, jobId: string) {
    const job = await this.bulk.getJob(
      // An order's vouchers, all of them (one order is at most a few hundred items).
      {
        principal: plan.principal,
        job_id: jobId,
        include_vouchers: true,
        vouchers_limit: 0,
        vouchers_after: '',
        errors_limit: 0,
      },
      { idempotent: true },
    );
    const finished = FINISHED.has(job.status);
    const transactionHash = job.vouchers.find((v) => v.transaction_hash)?.transaction_hash ?? null;
    let cancelled = false;
    if (finished) {
      await this.orders.setJob(shop, orderId, {
        jobId,
        jobStatus: job.status,
        voucherIds: job.vouchers.map((v) => v.id),
        transactionHash,
      });
      // Cancelled while the job ran: its vouchers are voided now and the order is not fulfilled.
      cancelled = (await this.orders.get(shop, orderId))?.status === 'cancelled';
      if (cancelled && !(await this.cancellations.voidIfCancelled(shop, orderId)))
        throw new Error('voiding the cancelled order’s vouchers failed');
    }
    return { finished, status: job.status, transactionHash, cancelled };
  }

  async fulfil(shop: string, orderId: string, transactionHash: string, final: boolean): Promise<string> {
    const { status } = await this.fulfilment.attempt(shop, orderId, transactionHash, final);
    fulfilments().inc({ outcome: status === 'pending' ? 'retry' : status });
    return status;
  }

  async skipFulfilment(shop: string, orderId: string, why: string): Promise<void> {
    await this.fulfilment.skip(shop, orderId, why);
    fulfilments().inc({ outcome: 'skipped' });
  }

  backoff(attempt: number): number {
    return this.fulfilment.backoff(attempt);
  }
}
