// The JetStream streams (HALLMARK, and the HALLMARK_DLQ dead-letter stream) and their settings.
// A service creates a missing stream (connectBus); only the release's migration step brings
// existing ones to the configured values (configureStreams), so processes of two releases with
// different values never flip a stream back and forth.
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { loadConfig, opsEnv } from './config.js';
import { DLQ_STREAM, DLQ_SUBJECT_PREFIX } from './dlq.js';
import { STREAM_NAME, STREAM_SUBJECTS } from './events.js';

const NANOS_PER_MS = 1_000_000;

/** Stream and consumer settings from the environment (`opsEnv`), validated. */
export function busSettings(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(
    z.object({
      HALLMARK_NATS_STREAM_REPLICAS: opsEnv.HALLMARK_NATS_STREAM_REPLICAS,
      HALLMARK_NATS_STREAM_MAX_AGE_HOURS: opsEnv.HALLMARK_NATS_STREAM_MAX_AGE_HOURS,
      HALLMARK_NATS_DLQ_MAX_AGE_HOURS: opsEnv.HALLMARK_NATS_DLQ_MAX_AGE_HOURS,
      HALLMARK_NATS_STREAM_MAX_BYTES: opsEnv.HALLMARK_NATS_STREAM_MAX_BYTES,
      HALLMARK_NATS_DLQ_MAX_BYTES: opsEnv.HALLMARK_NATS_DLQ_MAX_BYTES,
      HALLMARK_NATS_MAX_DELIVER: opsEnv.HALLMARK_NATS_MAX_DELIVER,
    }),
    env,
  );
  return {
    replicas: c.HALLMARK_NATS_STREAM_REPLICAS,
    maxAgeMs: c.HALLMARK_NATS_STREAM_MAX_AGE_HOURS * 3600_000,
    dlqMaxAgeMs: c.HALLMARK_NATS_DLQ_MAX_AGE_HOURS * 3600_000,
    maxBytes: c.HALLMARK_NATS_STREAM_MAX_BYTES,
    dlqMaxBytes: c.HALLMARK_NATS_DLQ_MAX_BYTES,
    maxDeliver: c.HALLMARK_NATS_MAX_DELIVER,
  };
}

export type StreamManager = Awaited<ReturnType<typeof jetstreamManager>>;

/** The two streams as the settings want them. */
export function streamConfigs(settings: ReturnType<typeof busSettings>) {
  const common = { duplicate_window: 10 * 60 * 1000 * NANOS_PER_MS, num_replicas: settings.replicas };
  return [
    {
      ...common,
      name: STREAM_NAME,
      subjects: STREAM_SUBJECTS,
      max_age: settings.maxAgeMs * NANOS_PER_MS,
      max_bytes: settings.maxBytes,
      // Full: refuse new events (the outbox keeps them) rather than drop old ones unread.
      discard: DiscardPolicy.New,
    },
    {
      ...common,
      name: DLQ_STREAM,
      subjects: [`${DLQ_SUBJECT_PREFIX}.>`],
      max_age: settings.dlqMaxAgeMs * NANOS_PER_MS,
      max_bytes: settings.dlqMaxBytes,
      discard: DiscardPolicy.Old,
    },
  ];
}

/**
 * Brings both streams to the settings: creates them, or updates replicas, age, size and
 * discard policy. The one owner of stream configuration is the release's migration step
 * (migrate-main.ts with HALLMARK_CONFIGURE_STREAMS, one container of the Helm hook Job), so
 * processes of two releases with different values never flip a stream back and forth.
 */
export async function configureStreams(nc: NatsConnection, settings = busSettings()): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const changed: string[] = [];
  for (const config of streamConfigs(settings)) {
    const info = await jsm.streams.info(config.name).catch(() => null);
    if (!info) {
      await createStream(jsm, config);
      changed.push(`${config.name} created`);
      continue;
    }
    const c = info.config;
    if (
      c.num_replicas !== config.num_replicas ||
      c.max_age !== config.max_age ||
      c.max_bytes !== config.max_bytes ||
      c.discard !== config.discard
    ) {
      await jsm.streams.update(config.name, { ...c, ...config, subjects: c.subjects });
      changed.push(`${config.name} updated`);
    }
  }
  return changed;
}

/** Adds a stream; one another process created at the same moment is fine. */
export async function createStream(jsm: StreamManager, config: ReturnType<typeof streamConfigs>[number]) {
  try {
    await jsm.streams.add(config);
  } catch (err) {
    // Another process created it at the same moment.
    if (!/already in use|exists/i.test((err as Error).message)) throw err;
  }
}
