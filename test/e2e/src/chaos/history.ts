// What the run did and saw, kept whole (Jepsen-style: the checker judges the complete
// history, not samples). Times are Date.now() milliseconds.

/** The parts a fault can take down; a call names the ones it depends on. */
export type Component =
  | 'gateway'
  | 'keys'
  | 'vouchers'
  | 'certificates'
  | 'bulk'
  | 'notify'
  | 'platform'
  | 'nats'
  | 'restate'
  | 'anvil'
  | 'postgres';

export type FaultKind =
  | 'kill-service'
  | 'restart-nats'
  | 'restart-restate'
  | 'stall-mining'
  | 'base-fee-spike'
  | 'pause-postgres'
  // Clustered engines (pnpm chaos --clustered):
  | 'failover-postgres'
  | 'kill-nats-node'
  | 'pause-nats-node'
  | 'kill-restate-node';

export interface FaultEvent {
  kind: FaultKind;
  /** The process or part it hit (e.g. `vouchers#1`). */
  target: string;
  /** The component whose outage excuses 503s (a killed replica nobody routes to: none). */
  component?: Component;
  start: number;
  /** When the part was back (ready again, mining again, fee back to normal). */
  end: number;
  note?: string;
}

export interface Call {
  op: string;
  /** Components the answer depends on (a 503 is excused only while one was down). */
  deps: Component[];
  start: number;
  end: number;
  /** HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  code?: string;
  /** Ids worth naming if this call breaks an invariant. */
  ref?: string;
}

export interface Redemption {
  voucherId: string;
  orderId: string;
  transactionId: string;
  at: number;
}

export interface Revocation {
  keyId: string;
  /** When the DELETE was answered 200: from then on the key must be refused. */
  ackAt: number;
}

export interface KeyUse {
  keyId: string;
  start: number;
  status: number;
}

export interface WebhookReceipt {
  endpointId: string;
  eventId: string;
  /** What the sink answered (only 2xx counts as delivered). */
  answered: number;
  signatureValid: boolean;
}

/** A gift the run created (from a certificate of one of its order jobs). */
export interface Gift {
  id: string;
  certificateId: string;
  tokenId: string;
  /** The holding wallet it leaves from (where an unclaimed gift's token stays). */
  senderAddress: string;
  at: number;
}

/** One claim of a gift as answered: 200/202 means this claimer took it. */
export interface GiftClaim {
  giftId: string;
  /** The claimer (the session's subject). */
  user: string;
  status: number;
  /** The wallet the answer says the token goes to (on 200/202). */
  recipientAddress?: string;
  at: number;
}

/** A paid order of the platform simulator's shop, and the webhooks that told Hallmark of it. */
export interface PaidOrder {
  /** The simulator's order id; Hallmark knows it as gid://shopify/Order/<id>. */
  orderId: number;
  units: number;
  /** orders/paid deliveries: webhook id and answer (0: none) — retries and duplicates included. */
  webhooks: { webhookId: string; status: number }[];
}

export interface History {
  seed: number;
  started: number;
  loadStopped: number;
  calls: Call[];
  faults: FaultEvent[];
  redemptions: Redemption[];
  vouchers: { id: string; maxUses: number }[];
  jobs: { id: string; form: 'order' | 'csv' }[];
  revocations: Revocation[];
  keyUses: KeyUse[];
  receipts: WebhookReceipt[];
  gifts: Gift[];
  giftClaims: GiftClaim[];
  orders: PaidOrder[];
  /** Time from the last fault's end to the first normal answer (ms), if it came. */
  recoveryMs?: number;
}

export function emptyHistory(seed: number): History {
  return {
    seed,
    started: Date.now(),
    loadStopped: 0,
    calls: [],
    faults: [],
    redemptions: [],
    vouchers: [],
    jobs: [],
    revocations: [],
    keyUses: [],
    receipts: [],
    gifts: [],
    giftClaims: [],
    orders: [],
  };
}
