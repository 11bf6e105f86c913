// What the certificate voucher routes share: tag, who may call, the `:id` a person may type.
import { HallmarkError } from '@hallmark/kit';
import type { Access } from '../../endpoint/define.js';
import { closed, Type } from '../../endpoint/schema.js';

export const TAGS = ['Certificate vouchers'];
export const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };
/** A voucher id or a reference number as a person may type it. */
export const ID_RE = /^[0-9A-Za-z_*~$=\- ]{1,64}$/;

export const idParams = closed({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Voucher id (v_…) or reference number' }),
});

export const notFound = (id: string) =>
  new HallmarkError('resource_not_found', { message: `No such voucher: '${id}'.` });
