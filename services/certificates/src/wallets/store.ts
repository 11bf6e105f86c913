// Custodial wallets: one per user and one per enterprise holding account, created on first
// use. The private key is generated here and stored only encrypted (kit Encryptor,
// HALLMARK_ENCRYPTION_KEYS); it is decrypted only to sign a holder's permit.
import { Encryptor, invalidParam, isId, missingParam, notFound, type Pool } from '@hallmark/kit';
import { getAddress, Wallet, type Provider } from 'ethers';

export type WalletOwnerKind = 'enterprise' | 'user';

export interface WalletRecord {
  ownerKind: WalletOwnerKind;
  ownerId: string;
  enterpriseId: string;
  address: string;
  createdAt: Date;
}

export interface EnsuredWallet {
  wallet: WalletRecord;
  created: boolean;
}

interface WalletRow {
  owner_kind: WalletOwnerKind;
  owner_id: string;
  enterprise_id: string;
  address: string;
  encrypted_key: string;
  created_at: Date;
}

const fromRow = (r: WalletRow): WalletRecord => ({
  ownerKind: r.owner_kind,
  ownerId: r.owner_id,
  enterpriseId: r.enterprise_id,
  address: r.address,
  createdAt: r.created_at,
});

/**
 * Validates a wallet owner reference of the principal's enterprise: `{kind: 'enterprise'}`
 * (id empty or the enterprise's own) or `{kind: 'user', id: 'user_…'}`.
 */
export function parseWalletOwner(
  enterpriseId: string,
  owner: { kind?: string; id?: string } | undefined,
  param: string,
): { kind: WalletOwnerKind; id: string } {
  if (!owner?.kind) throw missingParam(`${param}.kind`);
  if (owner.kind === 'enterprise') {
    if (owner.id && owner.id !== enterpriseId) throw notFound('wallet', owner.id);
    return { kind: 'enterprise', id: enterpriseId };
  }
  if (owner.kind === 'user') {
    if (!owner.id) throw missingParam(`${param}.id`);
    if (!isId('user', owner.id)) throw invalidParam(`${param}.id`, `${param}.id must be a user id.`);
    return { kind: 'user', id: owner.id };
  }
  throw invalidParam(`${param}.kind`, `${param}.kind must be enterprise or user.`);
}

export class WalletStore {
  private readonly encryptor: Encryptor;

  constructor(
    private readonly pool: Pool,
    encryptionKeys: string,
  ) {
    this.encryptor = new Encryptor(encryptionKeys);
  }

  /**
   * The owner's wallet, created with a fresh key the first time. A wallet belongs to one
   * enterprise: another enterprise asking for it gets not found.
   */
  async ensure(enterpriseId: string, kind: WalletOwnerKind, ownerId: string): Promise<EnsuredWallet> {
    const existing = await this.find(kind, ownerId);
    if (existing) return { wallet: this.owned(existing, enterpriseId), created: false };
    const key = Wallet.createRandom();
    const { rows } = await this.pool.query<WalletRow>(
      `INSERT INTO wallets (owner_kind, owner_id, enterprise_id, address, encrypted_key)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (owner_kind, owner_id) DO NOTHING RETURNING *`,
      [kind, ownerId, enterpriseId, key.address, this.encryptor.encrypt(key.privateKey)],
    );
    if (rows[0]) return { wallet: fromRow(rows[0]), created: true };
    const raced = await this.find(kind, ownerId); // a concurrent call created it
    return { wallet: this.owned(raced!, enterpriseId), created: false };
  }

  /**
   * A user's own wallet, whichever enterprise asks (a voucher recipient claims from any issuer):
   * wallets are keyed by (owner kind, owner id) alone and a user id names one user of one
   * enterprise, so the first use creates it in `homeEnterpriseId` (the user's own enterprise,
   * from their session) and every later use answers that same wallet.
   */
  async ensureUser(userId: string, homeEnterpriseId: string): Promise<EnsuredWallet> {
    const existing = await this.find('user', userId);
    if (existing) return { wallet: fromRow(existing), created: false };
    return this.ensure(homeEnterpriseId, 'user', userId).catch(async (err: unknown) => {
      // Created concurrently under another enterprise (a Transfer to this user id): still theirs.
      const raced = await this.find('user', userId);
      if (raced) return { wallet: fromRow(raced), created: false };
      throw err;
    });
  }

  /** The custodial wallet at `address`, if the service keeps one. */
  async byAddress(address: string): Promise<WalletRecord | null> {
    const { rows } = await this.pool.query<WalletRow>('SELECT * FROM wallets WHERE address = $1', [
      getAddress(address),
    ]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** The wallet's key, decrypted, as a signer (offline unless a provider is given). */
  async signer(address: string, provider?: Provider): Promise<Wallet> {
    const { rows } = await this.pool.query<{ encrypted_key: string }>(
      'SELECT encrypted_key FROM wallets WHERE address = $1',
      [getAddress(address)],
    );
    if (!rows[0]) throw new Error(`no custodial wallet at ${address}`);
    const wallet = new Wallet(this.encryptor.decrypt(rows[0].encrypted_key), provider ?? null);
    if (wallet.address !== getAddress(address)) throw new Error(`custodial key of ${address} does not match`);
    return wallet;
  }

  private async find(kind: WalletOwnerKind, ownerId: string): Promise<WalletRow | null> {
    const { rows } = await this.pool.query<WalletRow>(
      'SELECT * FROM wallets WHERE owner_kind = $1 AND owner_id = $2',
      [kind, ownerId],
    );
    return rows[0] ?? null;
  }

  private owned(row: WalletRow, enterpriseId: string): WalletRecord {
    if (row.enterprise_id !== enterpriseId) throw notFound('wallet', row.owner_id);
    return fromRow(row);
  }
}
