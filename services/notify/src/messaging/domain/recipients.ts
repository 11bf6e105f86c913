// Recipient validation and the forms stored: the address itself only encrypted, plus a
// SHA-256 of its normal form for lookup (phone numbers: E.164; emails: lower-cased).
import { sha256Hex } from '@hallmark/kit/crypto';
import { invalidParam, missingParam } from '@hallmark/kit/errors';

export type Channel = 'email' | 'sms';

const EMAIL =
  /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/** The address as sent: a trimmed email, or a phone number in E.164 (spaces, dashes, dots, brackets dropped). */
export function normaliseRecipient(channel: Channel, to: string): string {
  const value = to.trim();
  if (!value) throw missingParam('to');
  if (channel === 'email') {
    if (value.length > 254 || !EMAIL.test(value)) throw invalidParam('to', 'Invalid to: an email address.');
    return value;
  }
  const phone = value.replace(/[\s().-]/g, '');
  if (!E164.test(phone))
    throw invalidParam('to', 'Invalid to: a phone number in E.164 form, such as +15551234567.');
  return phone;
}

/** Lookup hash: SHA-256 hex of the normal form (emails compare case-insensitively). */
export const recipientHash = (channel: Channel, normalised: string): string =>
  sha256Hex(channel === 'email' ? normalised.toLowerCase() : normalised);
