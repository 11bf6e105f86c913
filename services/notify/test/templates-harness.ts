// Test wiring for the templates and messaging half over the real PostgreSQL server: a
// database per test file with the kit's and this service's migrations, the real handlers.
import { expect } from '@jest/globals';
import { HallmarkError, newId, openDatabase, type CallInfo, type ErrorCode, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import path from 'node:path';
import { createTemplatesHandlers } from '../src/templates/rpc.js';
import { DocumentTemplatesService } from '../src/templates/service.js';
import { DocumentTemplatesStore } from '../src/templates/store.js';
import type { CheckActors } from '../src/templates/actors.js';

export const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
export const CALL: CallInfo = { requestId: 'req_test', deadlineMs: Infinity };

export async function openTestDatabase(): Promise<{ pool: Pool; close(): Promise<void> }> {
  const database = uniqueDatabaseName('notify');
  const pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
  });
  return { pool, close: () => closeTestDatabase(pool, database) };
}

/** The actors `principal()` and `colleague()` made, by row id: their enterprise. */
const directory = new Map<string, string>();

/** The session `sub` the stand-in keys shows for a user's row id. */
export const subOf = (rowId: string) => `sub-${rowId}`;

/**
 * The keys service's CheckActors as a stand-in (its own behaviour is proven in
 * services/keys; actors.ts's gRPC adapter against a real gRPC server in
 * templates-actors.test.ts): the actors this harness made, known in their own enterprise by
 * row id or by `subOf(row id)`, shown by the latter.
 */
export const standInActors: CheckActors = async (p, refs) =>
  refs.flatMap((ref) => {
    const id = ref.startsWith('sub-') ? ref.slice(4) : ref;
    return directory.get(id) === p.enterprise_id ? [{ ref, id, display: subOf(id) }] : [];
  });

export async function startTemplates(checkActors: CheckActors = standInActors) {
  const db = await openTestDatabase();
  const store = new DocumentTemplatesStore(db.pool);
  return { ...db, store, api: createTemplatesHandlers(new DocumentTemplatesService(store, checkActors)) };
}

export function principal(
  opts: { enterpriseId?: string; livemode?: boolean; actorId?: string } = {},
): Principal {
  const p = {
    enterprise_id: opts.enterpriseId ?? newId('enterprise'),
    livemode: opts.livemode ?? true,
    actor_id: opts.actorId ?? newId('user'),
    actor_type: 'user',
    scopes: ['admin.*'],
  };
  directory.set(p.actor_id, p.enterprise_id);
  return p;
}

/** Another actor of the same enterprise and mode. */
export const colleague = (p: Principal): Principal => {
  const other = { ...p, actor_id: newId('user') };
  directory.set(other.actor_id, other.enterprise_id);
  return other;
};

export async function errorOf(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    return err as HallmarkError;
  }
  throw new Error('expected a HallmarkError, but the call succeeded');
}

export async function expectError(
  p: Promise<unknown>,
  code: ErrorCode,
  param?: string,
): Promise<HallmarkError> {
  const err = await errorOf(p);
  expect({ code: err.code, param: err.param }).toEqual({ code, param });
  return err;
}

/** A CreateTemplateRequest with every repeated field present (as the gRPC decoder gives). */
export function createRequest(p: Principal, over: Record<string, unknown> = {}) {
  return {
    principal: p,
    name: 'Invoice',
    type: 'invoice',
    format: 'html',
    template: '<h1>Invoice for {{customer}}</h1><p>Total: {{total}}</p><p>Due {{due}}</p>',
    variables: [
      { name: 'customer', type: 'string', required: true, default_value: undefined },
      { name: 'total', type: 'currency', required: true, default_value: undefined },
      { name: 'due', type: 'date', required: false, default_value: '2025-12-31' },
    ],
    styling: { brand_color: '#1A73E8', font_size: 12, font_family: 'Georgia, serif' },
    attachments: [],
    steps: [],
    conditions: [],
    ...over,
  } as any;
}
