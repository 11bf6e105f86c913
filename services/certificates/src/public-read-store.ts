// The public read's SQL (GetPublicCertificate, GetPublicCertificates and every slice that shows
// a certificate publicly through CertificatesStore.getPublic): the hottest reads of the
// service, so each is one prepared statement (one round trip, planned once per connection)
// for the certificates and their provenance.
import type { Queryable } from '@hallmark/kit';
import { certificateFromRow, type CertificateRow } from './certificate-rows.js';
import { publicActor, type ProvenanceKind } from './domain/certificate.js';
import type { CertificateRead } from './store.js';

/**
 * The columns both statements answer. Named, not `*`: a prepared statement whose result type
 * changes under it (a migration adding a column) fails until its connection is dropped.
 */
const COLUMNS = `c.id, c.enterprise_id, c.livemode, c.batch_id, c.position, c.token_id, c.name, c.image_url,
           c.metadata, c.metadata_hash, c.holder_address, c.status, c.transaction_hash, c.block_number,
           c.warranty, c.stolen, c.gtin, c.serial, c.service_history, c.created_at, c.updated_at,
           p.kind AS p_kind, p.actor AS p_actor, p.from_address AS p_from, p.to_address AS p_to,
           p.transaction_hash AS p_transaction_hash, p.block_number AS p_block_number, p.at AS p_at`;

/** The public read of one certificate. */
const PUBLIC_READ = {
  name: 'certificates_public_read',
  text: `SELECT ${COLUMNS}
         FROM certificates c LEFT JOIN provenance p ON p.certificate_id = c.id
         WHERE c.id = $1
         ORDER BY p.seq`,
};

/**
 * The public read of several ids: a certificate's rows adjacent (publicReadsOf groups them).
 * The provenance is a LATERAL subquery with its own ORDER BY so that it stays one index scan
 * per certificate: as a plain join of an `= ANY` list the planner hashes the whole provenance
 * table (a sequential scan, ~3 ms at 20,000 rows) to answer ten certificates.
 */
const PUBLIC_READ_MANY = {
  name: 'certificates_public_read_many',
  text: `SELECT ${COLUMNS}
         FROM certificates c
         LEFT JOIN LATERAL (
           SELECT seq, kind, actor, from_address, to_address, transaction_hash, block_number, at
           FROM provenance WHERE certificate_id = c.id ORDER BY seq
         ) p ON true
         WHERE c.id = ANY($1::text[])
         ORDER BY c.id, p.seq`,
};

/** A certificate row with one of its provenance entries (all null when it has none). */
interface PublicReadRow extends CertificateRow {
  p_kind: ProvenanceKind | null;
  p_actor: string | null;
  p_from: string | null;
  p_to: string | null;
  p_transaction_hash: string | null;
  p_block_number: string | null;
  p_at: Date | null;
}

/** The public read of a certificate, or null when there is none with the id. */
export async function readPublic(q: Queryable, id: string): Promise<CertificateRead | null> {
  const { rows } = await q.query<PublicReadRow>({ ...PUBLIC_READ, values: [id] });
  return publicReadsOf(rows)[0] ?? null;
}

/** The public reads of the certificates of `ids` that exist (each once, in no set order). */
export async function readPublicMany(q: Queryable, ids: string[]): Promise<CertificateRead[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const { rows } = await q.query<PublicReadRow>({ ...PUBLIC_READ_MANY, values: [wanted] });
  return publicReadsOf(rows);
}

/** Public reads from the statement's rows (a certificate's rows adjacent, provenance in order). */
function publicReadsOf(rows: PublicReadRow[]): CertificateRead[] {
  const reads: CertificateRead[] = [];
  let current: CertificateRead | undefined;
  for (const r of rows) {
    if (current?.certificate.id !== r.id) {
      current = { certificate: certificateFromRow(r), provenance: [] };
      reads.push(current);
    }
    if (r.p_kind === null) continue; // LEFT JOIN: no provenance yet
    current.provenance.push({
      kind: r.p_kind,
      actor: publicActor(r.p_actor), // public: the kind of actor, never an internal id
      from: r.p_from,
      to: r.p_to,
      transactionHash: r.p_transaction_hash,
      blockNumber: r.p_block_number === null ? null : Number(r.p_block_number),
      at: r.p_at!,
    });
  }
  return reads;
}
