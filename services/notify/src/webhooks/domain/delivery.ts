// A webhook delivery as the service sees it: the record (with its attempt log), a claimed
// attempt the worker is to make, and an attempt's outcome. Types only.
import type { DeliveryStatus } from './validation.js';

export interface Claim {
  id: string;
  token: string;
  /** 1-based number of this attempt. */
  attempt: number;
  maxAttempts: number;
  eventId: string;
  eventType: string;
  body: string;
  url: string;
  kind: 'endpoint' | 'subscription' | 'session';
  /** Live secrets, newest first (two during a rotation overlap). */
  secrets: string[];
  /** Set when a secret could not be decrypted (its key left HALLMARK_ENCRYPTION_KEYS). */
  secretError?: string;
  /** Milliseconds from the delivery's creation (the event's fan-out) to this claim. */
  waitedMs?: number;
}

export interface Outcome {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface AttemptRecord {
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  /** '' for a subscription's or session's delivery. */
  endpointId: string;
  subscriptionId: string | null;
  sessionId: string | null;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
  inFlight: boolean;
  log: AttemptRecord[];
}
