// The webhooks half of notify, assembled from its parts (dependencies by constructor, so
// tests hand in their own agent, schedule, timeouts and consumer names).
import {
  bind,
  type AsyncHandlers,
  createGuardedAgent,
  Encryptor,
  OutboundGuard,
  type Bus,
  type Logger,
  type Pool,
  type ServiceBinding,
} from '@hallmark/kit';
import { WebhooksServiceService, type WebhooksServiceServer } from '@hallmark/proto/notify/v1/webhooks';
import type { Dispatcher } from 'undici';
import { DELIVERY_RETENTION } from './attempts-store.js';
import { DeliveriesStore } from './deliveries-store.js';
import { maxAttemptsOf } from './domain/schedule.js';
import { createWebhooksHandlers } from './rpc.js';
import { WebhookSender } from './sender.js';
import { WebhooksService } from './service.js';
import { SESSION_RETENTION, SessionsStore } from './sessions-store.js';
import { WebhooksStore } from './store.js';
import { DeliveryWorker } from './workers/delivery-worker.js';
import { ListenHub } from './workers/listen-hub.js';
import { FanOutConsumer } from './workers/fan-out.js';

export const WEBHOOKS_PROTO = 'hallmark/notify/v1/webhooks.proto';

/** The webhook tables that grow with traffic, swept by age (kit retention.ts). */
export const WEBHOOKS_RETENTION = [...DELIVERY_RETENTION, SESSION_RETENTION];

export interface WebhooksSettings {
  encryptionKeys: string;
  outboundAllowHosts: string;
  retryScheduleS: number[];
  concurrency?: number;
  /** Attempts in flight per endpoint or subscription (HALLMARK_WEBHOOK_ENDPOINT_CONCURRENCY). */
  endpointConcurrency?: number;
  /** Test seams; production uses the defaults. */
  agent?: (guard: OutboundGuard) => Dispatcher;
  timeoutMs?: number;
  leaseMs?: number;
  pollIntervalMs?: number;
  durable?: string;
  filter?: string;
  ackWaitMs?: number;
  /** Enterprise subscriptions: `failing` after, and disabled after, this many failed attempts in a row. */
  failingAfter?: number;
  disableAfter?: number;
  listenPollIntervalMs?: number;
  /** Concurrently open listen sessions per enterprise (HALLMARK_LISTEN_MAX_SESSIONS). */
  maxListenSessions?: number;
}

export interface Webhooks {
  binding: ServiceBinding;
  api: AsyncHandlers<WebhooksServiceServer>;
  workers: { start(): Promise<void>; stop(): Promise<void> }[];
  store: WebhooksStore;
  deliveries: DeliveriesStore;
  service: WebhooksService;
  worker: DeliveryWorker;
  fanOut: FanOutConsumer;
  sessions: SessionsStore;
  hub: ListenHub;
}

export function createWebhooks(deps: { pool: Pool; bus: Bus; log: Logger }, s: WebhooksSettings): Webhooks {
  const { pool, bus, log } = deps;
  const encryptor = new Encryptor(s.encryptionKeys);
  const guard = new OutboundGuard(s.outboundAllowHosts);
  const store = new WebhooksStore(pool, encryptor);
  const deliveries = new DeliveriesStore(pool, encryptor, maxAttemptsOf(s.retryScheduleS), {
    failingAfter: s.failingAfter ?? 3,
    disableAfter: s.disableAfter ?? 20,
  });
  const sessions = new SessionsStore(pool, encryptor, s.maxListenSessions);
  const hub = new ListenHub(pool, sessions, deliveries, log, { pollIntervalMs: s.listenPollIntervalMs });
  const agent = s.agent ? s.agent(guard) : createGuardedAgent(guard, { connections: s.concurrency });
  const worker = new DeliveryWorker(pool, deliveries, new WebhookSender(agent, s.timeoutMs), log, {
    schedule: s.retryScheduleS,
    concurrency: s.concurrency,
    perEndpoint: s.endpointConcurrency,
    timeoutMs: s.timeoutMs,
    leaseMs: s.leaseMs,
    pollIntervalMs: s.pollIntervalMs,
  });
  const service = new WebhooksService(store, deliveries, guard, sessions, hub);
  const fanOut = new FanOutConsumer({
    bus,
    pool,
    log,
    webhooks: service,
    durable: s.durable,
    filter: s.filter,
    ackWaitMs: s.ackWaitMs,
  });
  const closeAgent = { start: async () => undefined, stop: () => agent.close() };
  const api = createWebhooksHandlers(service);
  return {
    binding: bind<WebhooksServiceServer>(WebhooksServiceService, api),
    api,
    // Stopped in this order: no new deliveries, then in-flight attempts finish, then sockets close.
    workers: [fanOut, worker, hub, closeAgent],
    store,
    deliveries,
    service,
    worker,
    fanOut,
    sessions,
    hub,
  };
}
