// SQL of issuer keys (migration 3201): one current P-256 key per enterprise and mode, created
// on first need, rotated on request; retired keys are kept (the DID documents list them). The
// secret is encrypted with the kit Encryptor before it is written and decrypted only to sign.
import { Encryptor, transaction, type Pool, type Queryable } from '@hallmark/kit';
import { keyIdOf, type IssuerPublicKey } from './domain/did.js';
import type { KeyMaterial } from './domain/proof.js';

interface KeyRow {
  enterprise_id: string;
  livemode: boolean;
  seq: number;
  public_key_multibase: string;
  secret_key_enc: string;
  retired_at: Date | null;
  created_at: Date;
}

/** The current key with its secret, ready to sign. */
export interface CurrentKey extends KeyMaterial {
  seq: number;
  keyId: string;
}

const publicOf = (r: KeyRow): IssuerPublicKey => ({
  keyId: keyIdOf(r.seq),
  publicKeyMultibase: r.public_key_multibase,
  current: r.retired_at === null,
});

export class IssuerKeyStore {
  private readonly encryptor: Encryptor;

  constructor(
    private readonly pool: Pool,
    encryptionKeys: string,
  ) {
    this.encryptor = new Encryptor(encryptionKeys);
  }

  /** Every key of the enterprise in the mode, newest first (empty: none created yet). */
  async publicKeys(
    enterpriseId: string,
    livemode: boolean,
    db: Queryable = this.pool,
  ): Promise<IssuerPublicKey[]> {
    const { rows } = await db.query<KeyRow>(
      'SELECT * FROM issuer_keys WHERE enterprise_id = $1 AND livemode = $2 ORDER BY seq DESC',
      [enterpriseId, livemode],
    );
    return rows.map(publicOf);
  }

  private current(r: KeyRow): CurrentKey {
    return {
      seq: r.seq,
      keyId: keyIdOf(r.seq),
      publicKeyMultibase: r.public_key_multibase,
      secretKeyMultibase: this.encryptor.decrypt(r.secret_key_enc),
    };
  }

  /** The current key, or null when the enterprise has none yet in this mode. */
  async currentKey(
    enterpriseId: string,
    livemode: boolean,
    db: Queryable = this.pool,
  ): Promise<CurrentKey | null> {
    const { rows } = await db.query<KeyRow>(
      'SELECT * FROM issuer_keys WHERE enterprise_id = $1 AND livemode = $2 AND retired_at IS NULL',
      [enterpriseId, livemode],
    );
    return rows[0] ? this.current(rows[0]) : null;
  }

  /**
   * The current key, created first (key-1, from `generate`) when there is none. Two callers
   * racing both insert seq 1; the primary key keeps one and both answer it.
   */
  async ensureKey(
    enterpriseId: string,
    livemode: boolean,
    generate: () => Promise<KeyMaterial>,
  ): Promise<CurrentKey> {
    const found = await this.currentKey(enterpriseId, livemode);
    if (found) return found;
    const m = await generate();
    await this.pool.query(
      `INSERT INTO issuer_keys (enterprise_id, livemode, seq, public_key_multibase, secret_key_enc)
       SELECT $1, $2, 1, $3, $4
       WHERE NOT EXISTS (SELECT 1 FROM issuer_keys WHERE enterprise_id = $1 AND livemode = $2)
       ON CONFLICT DO NOTHING`,
      [enterpriseId, livemode, m.publicKeyMultibase, this.encryptor.encrypt(m.secretKeyMultibase)],
    );
    const key = await this.currentKey(enterpriseId, livemode);
    if (!key) throw new Error('issuer key: none current after creating one');
    return key;
  }

  /**
   * Retires the current key and makes `material` the current one (key-<n+1>; key-1 when there
   * was none), in one transaction under the current row's lock: two rotations run one after
   * the other. Answers every key after the rotation, newest first.
   */
  async rotate(enterpriseId: string, livemode: boolean, material: KeyMaterial): Promise<IssuerPublicKey[]> {
    return transaction(this.pool, async (tx) => {
      // Serialise rotations (and a first creation) of this enterprise and mode.
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `issuer-keys:${enterpriseId}:${livemode}`,
      ]);
      const { rows } = await tx.query<{ seq: number }>(
        `UPDATE issuer_keys SET retired_at = now()
         WHERE enterprise_id = $1 AND livemode = $2 AND retired_at IS NULL RETURNING seq`,
        [enterpriseId, livemode],
      );
      const { rows: last } = await tx.query<{ max: number | null }>(
        'SELECT max(seq) AS max FROM issuer_keys WHERE enterprise_id = $1 AND livemode = $2',
        [enterpriseId, livemode],
      );
      const seq = (last[0]?.max ?? rows[0]?.seq ?? 0) + 1;
      await tx.query(
        `INSERT INTO issuer_keys (enterprise_id, livemode, seq, public_key_multibase, secret_key_enc)
         VALUES ($1, $2, $3, $4, $5)`,
        [
          enterpriseId,
          livemode,
          seq,
          material.publicKeyMultibase,
          this.encryptor.encrypt(material.secretKeyMultibase),
        ],
      );
      return this.publicKeys(enterpriseId, livemode, tx);
    });
  }
}
