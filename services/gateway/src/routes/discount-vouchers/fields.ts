// Request fields the voucher endpoints share.
import { Type } from '../../endpoint/schema.js';
import { MAX_USES } from '../bounds.js';

/** spec › Limits 3: 4 to 32 alphanumeric characters. */
export const code = Type.String({ minLength: 4, maxLength: 32, pattern: '^[A-Za-z0-9]+$' });

export const currency = (description: string) =>
  Type.String({ pattern: '^[A-Za-z]{3}$', minLength: 3, maxLength: 3, description });

export const uses = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_USES, description });
