// The recipient e-mail's keyed blind index (migration 3401): what makes an encrypted
// recipient_email_enc findable by equality (certificate search by e-mail) without the
// database ever holding the e-mail in the clear or as a plain (dictionary-attackable) hash.
// One normalisation for every writer and the search: trimmed and lower-cased.
import { BlindIndex } from '@hallmark/kit/crypto';

/** The e-mail as its index is taken: trimmed, lower-cased. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export class RecipientEmailIndex {
  private readonly index: BlindIndex;

  /** `keysCsv`: HALLMARK_ENCRYPTION_KEYS (the subkey is derived per purpose, kit BlindIndex). */
  constructor(keysCsv: string) {
    this.index = new BlindIndex(keysCsv, 'recipient-email');
  }

  /** Names the key the rows' indexes are made under now (changes with a key rotation). */
  get keyId(): string {
    return this.index.currentKeyId;
  }

  /** What a row stores (newest key). */
  of(email: string): string {
    return this.index.of(normaliseEmail(email));
  }

  /** What a search matches: the index under every configured key (rows from before a rotation). */
  candidates(email: string): string[] {
    return this.index.candidates(normaliseEmail(email));
  }
}
