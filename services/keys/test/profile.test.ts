// Enterprise issuer profiles against the real database and a local HTTPS "brand site": who
// may set and read them, what is accepted, the domain proof (served, missing, naming
// another enterprise, too large) fetched through the outbound guard, and the logo archived
// by the certificates media store over real gRPC (a stand-in MediaService: the store itself
// is proven in services/certificates/test/media.test.ts, the whole path in the e2e suites).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bind,
  createGrpcClient,
  createLogger,
  invalidParam,
  startGrpcServer,
  type AsyncHandlers,
  type RunningGrpcServer,
} from '@hallmark/kit';
import {
  MediaServiceClient,
  MediaServiceService,
  type ArchiveImageUrlRequest,
  type MediaServiceServer,
} from '@hallmark/proto/certificates/v1/media';
import { createServer, type Server } from 'node:https';
import { generate } from 'selfsigned';
import { grpcLogoArchive } from '../src/profile/logo-archive.js';
import { createProofCheck } from '../src/profile/proof-fetch.js';
import { CALL, newEnterprise, openHarness, refusal, signIn, type Harness } from './harness.js';

let h: Harness;
let site: Server;
let origin: string;
/** What the brand site serves at /.well-known/hallmark-issuer.json (null: 404). */
let proof: string | null = null;

const LOGO_SHA = 'c0ffee00'.repeat(8);
/** Every request the media store got. */
const archiveAsks: ArchiveImageUrlRequest[] = [];
/** The media store's refusal of any URL but `/logo.png`, worded with the name it is given. */
const refusedLogo = (name: string) =>
  `could not fetch ${name}: the URL did not answer with a PNG, JPEG, WebP or GIF image within the size and time limits`;
const mediaStandIn = {
  async archiveImageUrl(req: ArchiveImageUrlRequest) {
    archiveAsks.push(req);
    if (!req.url.endsWith('/logo.png')) throw invalidParam(req.param!, refusedLogo(req.param!));
    return { media: { sha256: LOGO_SHA, content_type: 'image/png', size: 900, width: 120, height: 40 } };
  },
} as unknown as AsyncHandlers<MediaServiceServer>; // the one method keys calls
let media: RunningGrpcServer;
let mediaClient: ReturnType<typeof createGrpcClient<MediaServiceClient>>;

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'hallmark-test-brand' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  site = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    if (req.url === '/.well-known/hallmark-issuer.json' && proof !== null) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(proof);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  origin = `https://127.0.0.1:${(site.address() as { port: number }).port}`;
  media = await startGrpcServer({
    name: 'media-stand-in',
    address: '127.0.0.1:0',
    services: [bind<MediaServiceServer>(MediaServiceService, mediaStandIn)],
    log: createLogger('media-stand-in', 'silent'),
  });
  mediaClient = createGrpcClient(MediaServiceClient, `127.0.0.1:${media.port}`);
  h = await openHarness(
    'keys_profile',
    createProofCheck({ allowHosts: '127.0.0.1', timeoutMs: 2000, ca: pems.cert }),
    grpcLogoArchive(mediaClient.api),
  );
});
afterAll(async () => {
  await h.close();
  mediaClient.close();
  await media.shutdown(0);
  await new Promise((resolve) => site.close(resolve));
});

const put = (principal: Parameters<Harness['rpc']['putEnterpriseProfile']>[0]['principal'], over = {}) =>
  h.rpc.putEnterpriseProfile(
    {
      principal,
      display_name: 'Maison Test',
      website: `${origin}/about`,
      logo_url: `${origin}/logo.png`,
      indexable: false,
      ...over,
    },
    CALL,
  );

describe('enterprise issuer profile', () => {
  it('has the media store archive the logo (named logoUrl) and keeps its copy, and the opt-in to search engines (off unless set)', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    const asked = archiveAsks.length;
    expect(await put(owner.principal, { indexable: true })).toMatchObject({
      logo_url: `${origin}/logo.png`,
      logo_sha256: LOGO_SHA,
      logo_width: 120,
      logo_height: 40,
      indexable: true,
    });
    expect(archiveAsks.slice(asked)).toEqual([{ url: `${origin}/logo.png`, param: 'logoUrl' }]);
    const plain = await put(owner.principal, { logo_url: undefined, indexable: false });
    expect(archiveAsks).toHaveLength(asked + 1); // no logo: nothing fetched
    expect(plain).toMatchObject({ indexable: false, logo_width: 0 });
    expect(plain.logo_sha256).toBeUndefined();
    expect(plain.logo_url).toBeUndefined();
  });

  it('an owner sets it; the domain is verified when the site names the enterprise, with the time', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    proof = JSON.stringify({ enterpriseId: owner.enterpriseId });
    const saved = await put(owner.principal);
    expect(saved).toMatchObject({
      enterprise_id: owner.enterpriseId,
      display_name: 'Maison Test',
      website: `${origin}/about`,
      logo_url: `${origin}/logo.png`,
      logo_sha256: LOGO_SHA,
      logo_width: 120,
      logo_height: 40,
      indexable: false,
      domain_status: 'verified',
      domain_detail: '',
    });
    expect(Date.parse(saved.domain_checked_at)).not.toBeNaN();
    expect(await h.rpc.getEnterpriseProfile({ principal: owner.principal }, CALL)).toEqual(saved);
    expect(await h.rpc.getPublicEnterpriseProfile({ enterprise_id: owner.enterpriseId }, CALL)).toEqual(
      saved,
    );
  });

  it('a missing proof, or one naming another enterprise, is stored unverified with the reason; re-check updates it', async () => {
    const admin = await signIn(h, { ent: newEnterprise(), role: 'admin' });
    proof = null;
    expect(await put(admin.principal)).toMatchObject({
      domain_status: 'unverified',
      domain_detail: '/.well-known/hallmark-issuer.json answered HTTP 404.',
    });
    proof = JSON.stringify({ enterpriseId: newEnterprise() });
    expect(await h.rpc.checkEnterpriseDomain({ principal: admin.principal }, CALL)).toMatchObject({
      domain_status: 'unverified',
      domain_detail: '/.well-known/hallmark-issuer.json does not name this enterprise.',
    });
    proof = JSON.stringify({ enterpriseIds: [newEnterprise(), admin.enterpriseId] });
    expect(await h.rpc.checkEnterpriseDomain({ principal: admin.principal }, CALL)).toMatchObject({
      domain_status: 'verified',
    });
    proof = `{"enterpriseId":"${admin.enterpriseId}","pad":"${'x'.repeat(20_000)}"}`;
    expect(await h.rpc.checkEnterpriseDomain({ principal: admin.principal }, CALL)).toMatchObject({
      domain_status: 'unverified',
      domain_detail: '/.well-known/hallmark-issuer.json is larger than 16384 bytes.',
    });
  });

  it('a logo the media store refuses is parameter_invalid logoUrl worded by the store, and nothing is saved', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    proof = null;
    const err = await refusal(put(owner.principal, { logo_url: `${origin}/gone.png` }));
    expect(err).toMatchObject({
      code: 'parameter_invalid',
      param: 'logoUrl',
      message: refusedLogo('logoUrl'),
    });
    expect((await refusal(h.rpc.getEnterpriseProfile({ principal: owner.principal }, CALL))).code).toBe(
      'resource_not_found',
    );
  });

  it('the outbound guard refuses a non-public host unless allowed: unverified, never fetched', async () => {
    const guarded = await openHarness(
      'keys_profile_guard',
      createProofCheck({ allowHosts: '', timeoutMs: 2000 }),
    );
    try {
      const owner = await signIn(guarded, { ent: newEnterprise(), role: 'owner' });
      const saved = await guarded.rpc.putEnterpriseProfile(
        {
          principal: owner.principal,
          display_name: 'X',
          website: origin,
          indexable: false,
        },
        CALL,
      );
      expect(saved).toMatchObject({
        domain_status: 'unverified',
        domain_detail: '127.0.0.1 is not a public address.',
      });
    } finally {
      await guarded.close();
    }
  });

  it('fails closed: members, unknown users and other enterprises neither set nor read it', async () => {
    const ent = newEnterprise();
    const owner = await signIn(h, { ent, role: 'owner' });
    const member = await signIn(h, { ent, role: 'member' });
    proof = null;
    await put(owner.principal);
    const asked = archiveAsks.length;
    expect((await refusal(put(member.principal))).code).toBe('insufficient_permissions');
    // The role is checked first: a member never makes Hallmark fetch a logo.
    expect(archiveAsks).toHaveLength(asked);
    expect((await refusal(h.rpc.getEnterpriseProfile({ principal: member.principal }, CALL))).code).toBe(
      'insufficient_permissions',
    );
    expect((await refusal(h.rpc.getEnterpriseProfile({ principal: undefined }, CALL))).code).toBe(
      'missing_api_key',
    );
    const other = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    expect((await refusal(h.rpc.getEnterpriseProfile({ principal: other.principal }, CALL))).code).toBe(
      'resource_not_found',
    );
    expect((await refusal(h.rpc.checkEnterpriseDomain({ principal: other.principal }, CALL))).code).toBe(
      'resource_not_found',
    );
    expect((await refusal(h.rpc.getPublicEnterpriseProfile({ enterprise_id: 'ent_nope' }, CALL))).code).toBe(
      'resource_not_found',
    );
  });

  it('accepts only an https website and logo and a printable display name, naming the parameter', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    const param = async (over: object) => (await refusal(put(owner.principal, over))).param;
    const asked = archiveAsks.length;
    expect(await param({ website: 'http://brand.example' })).toBe('website');
    expect(await param({ website: 'not a url' })).toBe('website');
    expect(await param({ website: '' })).toBe('website');
    expect(await param({ logo_url: 'javascript:alert(1)' })).toBe('logoUrl');
    expect(await param({ logo_url: 'http://brand.example/logo.png' })).toBe('logoUrl');
    // Refused before anything is fetched.
    expect(archiveAsks).toHaveLength(asked);
    expect(await param({ website: 'https://u:p@brand.example' })).toBe('website');
    expect(await param({ display_name: '  ' })).toBe('displayName');
    expect(await param({ display_name: 'x'.repeat(101) })).toBe('displayName');
  });

  it('refuses a display name holding a bidi control or an invisible character (parameter_invalid displayName), each kind; nothing saved', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    proof = null;
    const hidden = [
      '\u202E', // right-to-left override ("Maison" + RLO + "lanigiro" reads "original")
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D', // embeddings, pop
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069', // isolates
      '\u200E',
      '\u200F',
      '\u061C', // marks
      '\u200B',
      '\u200C',
      '\u200D',
      '\u2060',
      '\uFEFF', // zero-width, word joiner, BOM
      '\u00AD',
      '\u180E',
      '\u{E0041}', // soft hyphen, Mongolian vowel separator, tag letter (all Cf)
    ];
    for (const ch of hidden) {
      const err = await refusal(put(owner.principal, { display_name: `Maison${ch}Test` }));
      expect([ch.codePointAt(0)!.toString(16), err.code, err.param]).toEqual([
        ch.codePointAt(0)!.toString(16),
        'parameter_invalid',
        'displayName',
      ]);
    }
    expect((await refusal(h.rpc.getEnterpriseProfile({ principal: owner.principal }, CALL))).code).toBe(
      'resource_not_found',
    );
    // Letters of any script, and emoji (ZWJ sequences aside), remain names.
    expect(await put(owner.principal, { display_name: 'Maison Lumière — 東京 ✓' })).toMatchObject({
      display_name: 'Maison Lumière — 東京 ✓',
    });
  });
});
