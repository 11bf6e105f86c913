// Allowlist on user provisioning: the keys service provisions a user on the first use of a
// valid session token and records `user.created` through its outbox; this durable consumer
// gives the user a custodial wallet (created if needed, ../wallets/store.ts) and requests the
// wallet's address on the contract allowlist (`pending`; the mint worker's allowlist pass adds
// pending addresses in batches and retries failed ones).
//
// Idempotent by event id (the kit records the id in `processed_events` in the transaction
// that writes the allowlist request, so a redelivered or re-published event adds nothing), and
// each effect is idempotent on its own as well: one wallet per user, one entry per address
// (a pending or successful one is left as it is). Replicas share the durable consumer, so each
// event is handled by one of them. A new durable starts at the beginning of the stream, so
// users provisioned within the stream's retention before this consumer existed are covered.
import {
  HallmarkError,
  isId,
  startConsumer,
  subjectFor,
  type Bus,
  type Consumer,
  type EventData,
  type EventEnvelope,
  type Logger,
  type Pool,
  type PoolClient,
} from '@hallmark/kit';
import type { WalletStore } from '../wallets/store.js';
import type { AllowlistStore } from './store.js';

export interface ProvisioningConsumerOptions {
  bus: Bus;
  pool: Pool;
  log: Logger;
  wallets: WalletStore;
  allowlist: AllowlistStore;
  /** Wakes the allowlist writer (the mint worker) once a request committed. */
  onRequested?: () => void;
  /** Durable consumer name, shared by replicas (default certificates-user-provisioning). */
  durable?: string;
  /** Subject filter (default the keys service's user.created). */
  filter?: string;
  ackWaitMs?: number;
}

export class ProvisioningConsumer {
  private consumer: Consumer | null = null;

  constructor(private readonly opts: ProvisioningConsumerOptions) {}

  async start(): Promise<void> {
    const { bus, pool, log } = this.opts;
    this.consumer = await startConsumer({
      bus,
      pool,
      log,
      durable: this.opts.durable ?? 'certificates-user-provisioning',
      filter: this.opts.filter ?? subjectFor('keys', 'user.created'),
      ackWaitMs: this.opts.ackWaitMs,
      handle: (event, tx) => this.handle(event, tx),
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  /** Ensures the user's wallet and requests its address on the allowlist (in `tx`). */
  async handle(event: EventEnvelope, tx: PoolClient): Promise<void> {
    if (event.type !== 'user.created') return;
    const user = event.data as EventData<'user.created'>;
    const { log } = this.opts;
    if (!isId('user', user.id) || !isId('enterprise', user.enterprise_id)) {
      log.warn({ event_id: event.id, user: user.id }, 'provisioning: malformed user.created; skipped');
      return;
    }
    let address: string;
    try {
      address = (await this.opts.wallets.ensure(user.enterprise_id, 'user', user.id)).wallet.address;
    } catch (err) {
      // The user id already has a wallet of another enterprise (a Transfer named a foreign
      // user): a refusal no retry can change.
      if (err instanceof HallmarkError && err.code === 'resource_not_found') {
        log.warn(
          { event_id: event.id, user: user.id },
          'provisioning: wallet of another enterprise; skipped',
        );
        return;
      }
      throw err;
    }
    const entry = await this.opts.allowlist.request(address, user.enterprise_id, tx);
    log.info({ user: user.id, address, status: entry.status }, 'provisioning: allowlist requested');
    // The kit commits right after this handler returns; a wake that comes too early is
    // covered by the worker's interval.
    if (entry.status === 'pending' && this.opts.onRequested) setTimeout(this.opts.onRequested, 50).unref();
  }
}
