import { describe, expect, it } from '@jest/globals';
import { HallmarkError, requirePrincipal, scopeOf } from '../src/index.js';

const principal = {
  enterprise_id: 'ent_1',
  livemode: false,
  actor_id: 'apikey_1',
  actor_type: 'api_key',
  scopes: ['admin.*'],
};

const missing = (fn: () => unknown, param: string) => {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(HallmarkError);
  expect(err).toMatchObject({ code: 'parameter_missing', param });
};

describe('the caller of a gRPC request', () => {
  it('is the principal’s enterprise, mode and actor', () => {
    expect(scopeOf(principal)).toEqual({
      enterpriseId: 'ent_1',
      livemode: false,
      actorId: 'apikey_1',
      actorType: 'api_key',
    });
    expect(requirePrincipal(principal)).toBe(principal);
  });

  it('fails closed without a principal or an enterprise, and without an actor when one is required', () => {
    missing(() => scopeOf(undefined), 'principal');
    missing(() => scopeOf({ ...principal, enterprise_id: '' }), 'principal');
    missing(() => requirePrincipal(undefined), 'principal');
    expect(scopeOf({ ...principal, actor_id: '' }).actorId).toBe('');
    missing(() => scopeOf({ ...principal, actor_id: '' }, { actor: 'required' }), 'principal.actor_id');
  });
});
