// The side effects of the paid-order workflow, one method per durable step: read the order,
// look its products up (GraphQL, else REST), build its job (from the line items when the
// products cannot be read), report an order that cannot become a job, create the job in
// bulk (adopting an existing one on 409), read the job's outcome, and fulfil. Each step is
// safe to repeat (see workflows/order-paid.ts).
import { counter, HallmarkError, type AsyncClient, type Logger } from '@hallmark/kit';
import type { BulkServiceClient } from '@hallmark/proto/bulk/v1/bulk';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import type { AdminApi, ProductInfo } from '../admin-api/client.js';
import type { FulfilmentService } from '../fulfilment/service.js';
import { PROVISIONED_SCOPES } from '../install/service.js';
import type { InstallStore } from '../install/store.js';
import type { Cancellations } from './cancellation.js';
import { buildOrderForm, idempotencyKeyFor, MAX_UNITS, type OrderFailure } from './domain/order-form.js';
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
  idempotencyKey: string;
  autoFulfill: boolean;
}

/** The products of an order as a durable step answers them (JSON: entries, not a Map). */
export type ProductEntries = [string, ProductInfo][];

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
    private readonly keys: Pick<AsyncClient<KeysServiceClient>, 'getPublicEnterpriseProfile'>,
    private readonly fulfilment: FulfilmentService,
    private readonly cancellations: Cancellations,
    private readonly log: Logger,
  ) {
    fulfilments(); // every outcome at 0 from the start
  }

  /** The order and its integration, read from our own tables (no outside call). */
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
    return {
      principal: {
        enterprise_id: integration.enterpriseId,
        livemode: integration.livemode,
        actor_id: integration.apiKeyId ?? 'platform',
        actor_type: 'api_key',
        scopes: PROVISIONED_SCOPES,
      },
      idempotencyKey: idempotencyKeyFor(shop, parsed),
      autoFulfill: integration.autoFulfill,
    };
  }

  /**
   * The order's products from the Admin API (GraphQL, else REST). Throws when both fail; the
   * workflow retries this step a bounded number of times, then builds the job without them.
   */
  async products(shop: string, orderId: string): Promise<ProductEntries> {
    const order = await this.orders.get(shop, orderId);
    const token = await this.installs.accessToken(shop);
    if (!order || !token) return [];
    const ids = [
      ...new Set(parseOrder(order.payload).lines.flatMap((l) => (l.productGid ? [l.productGid] : []))),
    ];
    const found = await this.admin.products(shop, token, ids);
    if (found.via === 'rest')
      this.log.warn({ shop, orderId }, 'order: products read through REST (GraphQL failed)');
    return [...found.products];
  }

  /** Logged when the products could not be read at all: the job is made from the line items. */
  productsUnavailable(shop: string, orderId: string, reason: string): void {
    this.log.warn(
      { shop, orderId, reason },
      'order: products unreadable; the job is built from the line items',
    );
  }

  /**
   * The order form, or why the order cannot become a job (a unit without any image). The
   * issuer profile's logo is read only when a product and its mapping give no image.
   */
  async orderForm(
    shop: string,
    orderId: string,
    principal: Principal,
    products: ProductEntries,
  ): Promise<{ bodyJson: string } | { failure: OrderFailure }> {
    const integration = await this.installs.forShop(shop);
    const order = await this.orders.get(shop, orderId);
    if (!integration || !order) throw new Error(`order ${orderId} of ${shop} vanished`);
    const parsed = parseOrder(order.payload);
    const map = new Map(products);
    let form = buildOrderForm(shop, parsed, map, integration.mapping);
    if (form.missingImage) {
      const logo = await this.issuerLogo(principal.enterprise_id);
      if (logo) form = buildOrderForm(shop, parsed, map, integration.mapping, logo);
    }
    if (form.missingImage) return { failure: form.missingImage };
    return { bodyJson: JSON.stringify(form.body) };
  }

  /** The issuer profile's logo URL, or null when the enterprise has no profile (or no logo). */
  private async issuerLogo(enterpriseId: string): Promise<string | null> {
    try {
      const p = await this.keys.getPublicEnterpriseProfile(
        { enterprise_id: enterpriseId },
        { idempotent: true, deadlineMs: 5000 },
      );
      return p.logo_url || null;
    } catch (err) {
      if (err instanceof HallmarkError && err.code === 'resource_not_found') return null;
      throw err;
    }
  }

  /**
   * Reports an order that cannot become its job: on the order, as the integration's
   * `lastError`, and as the enterprise webhook `platform.order.failed` (once).
   */
  async reportFailure(shop: string, orderId: string, failure: OrderFailure): Promise<void> {
    const integration = await this.installs.forShop(shop);
    const order = await this.orders.get(shop, orderId);
    if (!integration || !order) return;
    const parsed = parseOrder(order.payload);
    const first = await this.orders.recordFailure(
      { shop, orderId, orderName: parsed.name, orderNumber: parsed.number },
      integration,
      failure,
    );
    if (first)
      this.log.warn(
        { shop, orderId, code: failure.code, param: failure.param },
        'order: cannot become a job',
      );
  }

  async createJob(
    shop: string,
    orderId: string,
    plan: Plan,
    bodyJson: string,
  ): Promise<{ jobId: string } | { failure: OrderFailure }> {
    let jobId: string;
    let status: string;
    try {
      const job = await this.bulk.createOrderJob(
        { principal: plan.principal, idempotency_key: plan.idempotencyKey, body_json: bodyJson },
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
        return {
          failure: { code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}) },
        };
      } else throw err;
    }
    await this.orders.setJob(shop, orderId, { jobId, jobStatus: status });
    await this.orders.clearLastError(shop);
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
