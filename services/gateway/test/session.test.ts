import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSessionVerifier } from '../src/auth/session.js';

const SECRET = 'x'.repeat(40);
const ENT = 'ent_ABCDEFGHIJKLMNOPQRSTUVWX';
const hs = (claims: Record<string, unknown>, opts: { exp?: number; alg?: string; secret?: string } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? 'HS256' })
    .setSubject('alice')
    .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 60)
    .sign(new TextEncoder().encode(opts.secret ?? SECRET));

describe('HS256 sessions', () => {
  const verify = createSessionVerifier({ secret: SECRET });

  it('accept a valid token and read sub, ent, email and role', async () => {
    const claims = await verify(await hs({ ent: ENT, email: 'a@b.test', role: 'admin' }));
    expect(claims).toEqual({
      sub: 'alice',
      ent: ENT,
      email: 'a@b.test',
      provenEmail: 'a@b.test',
      role: 'admin',
    });
  });

  it('prove an e-mail only when the claim is a valid address and email_verified is absent or boolean true', async () => {
    const proven = async (claims: Record<string, unknown>) =>
      (await verify(await hs({ ent: ENT, ...claims }))).provenEmail;
    expect(await proven({ email: ' a@b.test ' })).toBe('a@b.test');
    expect(await proven({ email: 'a@b.test', email_verified: true })).toBe('a@b.test');
    for (const email_verified of [false, 'false', 'true', 'False', 0, 1, null, {}, []])
      expect([email_verified, await proven({ email: 'a@b.test', email_verified })]).toEqual([
        email_verified,
        null,
      ]);
    for (const email of [undefined, '', '  ', null, ['a@b.test'], 7])
      expect(await proven({ email })).toBeNull();
    for (const email of ['a@b.test x', 'not-an-address ', 'a@b', '<a@b.test>', 'a@b.test\u202e', 'a@@b.test'])
      expect([email, await proven({ email })]).toEqual([email, null]);
  });

  it('treat an unknown role as member', async () => {
    expect((await verify(await hs({ ent: ENT, role: 'superuser' }))).role).toBe('member');
  });

  it('refuse an expired token, a wrong signature, and a token without a valid ent', async () => {
    await expect(
      verify(await hs({ ent: ENT }, { exp: Math.floor(Date.now() / 1000) - 10 })),
    ).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(verify(await hs({ ent: ENT }, { secret: 'y'.repeat(40) }))).rejects.toMatchObject({
      code: 'invalid_token',
    });
    await expect(verify(await hs({ ent: 'acme' }))).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuse alg none and a token with no exp', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({ sub: 'alice', ent: ENT, exp: Math.floor(Date.now() / 1000) + 60 }),
    ).toString('base64url');
    await expect(verify(`${header}.${body}.`)).rejects.toMatchObject({ code: 'invalid_token' });
    const noExp = await new SignJWT({ ent: ENT })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .sign(new TextEncoder().encode(SECRET));
    await expect(verify(noExp)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuse a token living longer than maxTtlSec, by exp − iat or by exp − now', async () => {
    const short = createSessionVerifier({ secret: SECRET, maxTtlSec: 3600 });
    const now = Math.floor(Date.now() / 1000);
    const signed = (iat: number | undefined, exp: number) => {
      const jwt = new SignJWT({ ent: ENT }).setProtectedHeader({ alg: 'HS256' }).setSubject('alice');
      if (iat !== undefined) jwt.setIssuedAt(iat);
      return jwt.setExpirationTime(exp).sign(new TextEncoder().encode(SECRET));
    };
    await expect(short(await signed(now, now + 3600))).resolves.toMatchObject({ sub: 'alice' });
    await expect(short(await signed(undefined, now + 3000))).resolves.toMatchObject({ sub: 'alice' });
    for (const [iat, exp] of [
      [now, now + 3601],
      [undefined, now + 7200],
      [now + 86_400, now + 86_400 + 60],
    ] as const)
      await expect(short(await signed(iat, exp))).rejects.toMatchObject({ code: 'invalid_token' });
  });
});

describe('HS256 secret rotation (HALLMARK_JWT_PREVIOUS_SECRET)', () => {
  const NEW = 'n'.repeat(40);

  it('accept tokens of the previous secret while it is configured, and refuse them once it is removed', async () => {
    const during = createSessionVerifier({ secret: NEW, previousSecret: SECRET });
    expect((await during(await hs({ ent: ENT }))).sub).toBe('alice'); // signed with the old secret
    expect((await during(await hs({ ent: ENT }, { secret: NEW }))).sub).toBe('alice');
    await expect(during(await hs({ ent: ENT }, { secret: 'o'.repeat(40) }))).rejects.toMatchObject({
      code: 'invalid_token',
    });
    const after = createSessionVerifier({ secret: NEW });
    await expect(after(await hs({ ent: ENT }))).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('still refuse an expired token of the previous secret', async () => {
    const during = createSessionVerifier({ secret: NEW, previousSecret: SECRET });
    await expect(
      during(await hs({ ent: ENT }, { exp: Math.floor(Date.now() / 1000) - 120 })),
    ).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });
});

describe('JWKS sessions', () => {
  let server: Server;
  let url: string;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  let jwk: JWK;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('accept an RS256 token signed by a key of the JWKS', async () => {
    const verify = createSessionVerifier({ jwksUrl: url });
    const token = await new SignJWT({ ent: ENT, role: 'owner' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('bob')
      .setExpirationTime('1m')
      .sign(privateKey);
    expect(await verify(token)).toMatchObject({ sub: 'bob', ent: ENT, role: 'owner' });
  });

  it('refuse an HS256 token when sessions come from a JWKS (no algorithm confusion)', async () => {
    const verify = createSessionVerifier({ jwksUrl: url });
    await expect(verify(await hs({ ent: ENT }))).rejects.toMatchObject({ code: 'invalid_token' });
  });

  describe('with a secret set too (the dev stack: CLI tokens beside the console sign-in)', () => {
    const both = () => createSessionVerifier({ jwksUrl: url, secret: SECRET });
    const rs = async () =>
      new SignJWT({ ent: ENT, role: 'owner' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setSubject('bob')
        .setExpirationTime('1m')
        .sign(privateKey);

    it('accept an HS256 token signed with the secret and an RS256 token from the JWKS', async () => {
      const verify = both();
      expect(await verify(await hs({ ent: ENT }))).toMatchObject({ sub: 'alice', ent: ENT });
      expect(await verify(await rs())).toMatchObject({ sub: 'bob', ent: ENT });
    });

    it('refuse an HS256 token signed with anything but the secret (a JWKS key used as an HMAC secret)', async () => {
      const verify = both();
      await expect(verify(await hs({ ent: ENT }, { secret: JSON.stringify(jwk) }))).rejects.toMatchObject({
        code: 'invalid_token',
      });
      await expect(verify(await hs({ ent: ENT }, { secret: 'y'.repeat(40) }))).rejects.toMatchObject({
        code: 'invalid_token',
      });
      await expect(verify('not-a-jwt')).rejects.toMatchObject({ code: 'invalid_token' });
    });
  });
});
