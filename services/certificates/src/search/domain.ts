// Certificate search, pure rules: the query as SearchCertificates receives it turned into the
// criteria the store matches (issue 34). Every criterion given must match (AND); at least one
// is needed. Empty strings count as not given (a form's blank fields). No I/O.
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';
import { normaliseGtin } from '@hallmark/kit/gs1';
import { isEmailAddress } from '@hallmark/kit/text';
import { parseReferenceNumber } from '../certificate-vouchers/domain.js';

/** A name substring shorter than this matches nearly everything (and no trigram). */
export const MIN_PRODUCT_LENGTH = 2;
export const MAX_PRODUCT_LENGTH = 200;

export interface SearchCriteria {
  /** A voucher's reference number, canonical (HM-XXXX-XXXX-C). */
  referenceNumber: string | null;
  /** The GTIN exactly (14 digits), when the product was digits. */
  gtin: string | null;
  /** An ILIKE pattern of the name (wildcards in the text escaped), when the product was not. */
  namePattern: string | null;
  /** The e-mail as typed (the store indexes it: domain/email-index.ts). */
  email: string | null;
}

export interface SearchInput {
  reference_number?: string;
  product?: string;
  email?: string;
}

/** `%`, `_` and the escape itself taken literally in a LIKE pattern (default escape `\`). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function parseSearch(input: SearchInput): SearchCriteria {
  const ref = input.reference_number?.trim() || null;
  const product = input.product?.trim() || null;
  const email = input.email?.trim() || null;
  if (!ref && !product && !email) {
    throw new HallmarkError('parameter_missing', {
      param: 'query',
      message: 'Give at least one of referenceNumber, product or email.',
    });
  }
  const criteria: SearchCriteria = { referenceNumber: null, gtin: null, namePattern: null, email: null };
  if (ref) {
    criteria.referenceNumber = parseReferenceNumber(ref);
    if (!criteria.referenceNumber)
      throw invalidParam('referenceNumber', 'referenceNumber is not a reference number (HM-XXXX-XXXX-C).');
  }
  if (product) {
    if (/^[0-9]+$/.test(product)) {
      const gtin = normaliseGtin(product);
      if ('problem' in gtin) throw invalidParam('product', `product, a GTIN, ${gtin.problem}.`);
      criteria.gtin = gtin.gtin;
    } else {
      if (product.length < MIN_PRODUCT_LENGTH || product.length > MAX_PRODUCT_LENGTH)
        throw invalidParam(
          'product',
          `product must be ${MIN_PRODUCT_LENGTH} to ${MAX_PRODUCT_LENGTH} characters (or a GTIN: digits).`,
        );
      criteria.namePattern = `%${likeLiteral(product)}%`;
    }
  }
  if (email) {
    if (!isEmailAddress(email)) throw invalidParam('email', 'email is not an e-mail address.');
    criteria.email = email;
  }
  return criteria;
}
