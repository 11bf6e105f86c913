// Where a request's credential is read from: the Authorization header's `Bearer` value is an
// API key unless it has the shape of a session token (JWT) and is not a `pk_` key; blanks
// around it are not part of it.
import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import { extractCredential } from '../src/auth/credentials.js';

const KEY = 'pk_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345abcdef';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';
const read = (authorization: string) =>
  extractCredential({ headers: { authorization }, query: {} } as unknown as FastifyRequest);

describe('extractCredential', () => {
  it('reads a Bearer API key, however it is spaced or cased', () => {
    for (const header of [
      `Bearer ${KEY}`,
      `bearer ${KEY}`,
      `Bearer  ${KEY}`,
      `Bearer ${KEY}  `,
      `Bearer\t${KEY}`,
    ])
      expect(read(header)).toEqual({ kind: 'api_key', secret: KEY, fromQuery: false });
  });

  it('reads a JWT-shaped value as a session token, and a pk_ value as a key even when JWT-shaped', () => {
    expect(read(`Bearer ${JWT}`)).toEqual({ kind: 'session', token: JWT });
    expect(read('Bearer pk_a.b.c')).toEqual({ kind: 'api_key', secret: 'pk_a.b.c', fromQuery: false });
  });

  it('passes a malformed value on as a key (the verifier refuses it), never a part of it', () => {
    expect(read(`Bearer ${KEY} extra`)).toEqual({ kind: 'api_key', secret: '', fromQuery: false });
    expect(read(KEY)).toEqual({ kind: 'api_key', secret: '', fromQuery: false });
  });
});
