// The public-read bench's baseline, run as its own process like the gateway and the
// certificates service are: a bare Fastify + `pg` handler answering
// GET /api/certificate/public/:id with the statement the certificates service runs
// (public-read-store.ts readPublic: the certificate and its provenance in one prepared
// statement) on the same database, with a pool of the same size, in the same JSON shape;
// the issuer line is read as the service reads it (its `issuer_profiles` read model, the same
// database). Env: BARE_DATABASE_URL, BARE_PORT, BARE_PUBLIC_URL.
import { digitalLinkPath } from '@hallmark/kit/gs1';
import Fastify from 'fastify';
import pg from 'pg';

interface Row {
  id: string;
  enterprise_id: string;
  name: string;
  image_url: string | null;
  metadata: Record<string, unknown>;
  token_id: string | null;
  status: string;
  transaction_hash: string | null;
  block_number: string | null;
  gtin: string | null;
  serial: string | null;
  stolen: { kind: string; reportedAt: string; reportedBy: { type: string } } | null;
  service_history: ServiceEntry[] | null;
  p_kind: string | null;
  p_actor: string | null;
  p_from: string | null;
  p_to: string | null;
  p_transaction_hash: string | null;
  p_block_number: string | null;
  p_at: Date | null;
}

/** An accepted service record as the certificates row holds it (domain/service-record.ts). */
interface ServiceEntry {
  id: string;
  kind: string;
  label: string | null;
  performedAt: string;
  performer: string;
  description: string;
  attachments: {
    kind: string;
    sha256: string;
    contentType: string;
    width: number;
    height: number;
    caption?: string | null;
  }[];
  acceptedAt: string;
}

/** Word for word the statement of services/certificates/src/public-read-store.ts (PUBLIC_READ). */
const PUBLIC_READ = {
  name: 'certificates_public_read',
  text: `SELECT c.id, c.enterprise_id, c.livemode, c.batch_id, c.position, c.token_id, c.name, c.image_url,
           c.metadata, c.metadata_hash, c.holder_address, c.status, c.transaction_hash, c.block_number,
           c.warranty, c.stolen, c.gtin, c.serial, c.service_history, c.created_at, c.updated_at,
           p.kind AS p_kind, p.actor AS p_actor, p.from_address AS p_from, p.to_address AS p_to,
           p.transaction_hash AS p_transaction_hash, p.block_number AS p_block_number, p.at AS p_at
         FROM certificates c LEFT JOIN provenance p ON p.certificate_id = c.id
         WHERE c.id = $1
         ORDER BY p.seq`,
};

const num = (v: string | null) => (v === null ? null : Number(v));

/** As the service's publicActor: an address as it is, an internal id only as its kind. */
const publicActor = (a: string | null) =>
  a === null
    ? null
    : /^0x[0-9a-fA-F]{40}$/.test(a)
      ? a
      : a.startsWith('apikey_')
        ? 'api_key'
        : a.startsWith('user_')
          ? 'user'
          : null;

/** Word for word the service's issuer read (issuers/store.ts), for the issuer line. */
const PROFILE_READ = {
  name: 'issuer_profile_read',
  text: 'SELECT * FROM issuer_profiles WHERE enterprise_id = $1',
};

const PUBLIC_URL = (process.env.BARE_PUBLIC_URL ?? '').replace(/\/+$/, '');
// The service's pool size (HALLMARK_DB_POOL_MAX caps both alike).
const POOL = Math.min(10, Number(process.env.HALLMARK_DB_POOL_MAX) || 10);
const db = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: POOL });
const app = Fastify();
app.get<{ Params: { id: string } }>('/api/certificate/public/:id', async (request, reply) => {
  const { rows } = await db.query<Row>({ ...PUBLIC_READ, values: [request.params.id] });
  const c = rows[0];
  if (!c) return reply.status(404).send({ success: false });
  // The gateway names the issuer (the service's copy of the enterprise's public profile).
  const { rows: profiles } = await db.query<{
    display_name: string;
    website: string;
    domain_verified: boolean;
  }>({ ...PROFILE_READ, values: [c.enterprise_id] });
  const p = profiles[0];
  return {
    issuer: p
      ? {
          name: p.display_name,
          website: p.website,
          domain: new URL(p.website).host,
          domainVerified: p.domain_verified,
        }
      : null,
    id: c.id,
    name: c.name,
    imageUrl: c.image_url,
    metadata: c.token_id === null ? c.metadata : { ...c.metadata, tokenId: Number(c.token_id) },
    provenance: rows
      .filter((p) => p.p_kind !== null)
      .map((p) => ({
        kind: p.p_kind,
        actor: publicActor(p.p_actor),
        from: p.p_from,
        to: p.p_to,
        transactionHash: p.p_transaction_hash,
        blockNumber: num(p.p_block_number),
        at: p.p_at!.toISOString(),
      })),
    status: c.status,
    burned: c.status === 'burned',
    tokenId: num(c.token_id),
    transactionHash: c.transaction_hash,
    blockNumber: num(c.block_number),
    gtin: c.gtin,
    serial: c.serial,
    digitalLink: c.gtin && c.serial ? `${PUBLIC_URL}${digitalLinkPath(c.gtin, c.serial)}` : null,
    stolen: c.stolen
      ? {
          kind: c.stolen.kind,
          reportedAt: c.stolen.reportedAt,
          reportedBy: c.stolen.reportedBy.type === 'owner' ? 'owner' : 'brand',
        }
      : null,
    serviceHistory: (c.service_history ?? []).map((e) => ({
      id: e.id,
      kind: e.kind,
      label: e.label,
      performedAt: e.performedAt,
      performer: e.performer,
      description: e.description,
      attachments: e.attachments.map((a) => ({
        kind: a.kind,
        url: `/media/${a.sha256}`,
        sha256: a.sha256,
        contentType: a.contentType,
        width: a.width,
        height: a.height,
        caption: a.caption ?? null,
      })),
      acceptedAt: e.acceptedAt,
    })),
  };
});
await app.listen({ port: Number(process.env.BARE_PORT), host: '127.0.0.1' });
const stop = () => void app.close().then(() => db.end().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
