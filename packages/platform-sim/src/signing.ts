// The platform's two signatures, exactly as a receiving app verifies them: the OAuth
// callback query (hex HMAC-SHA256 over the sorted `key=value` pairs without `hmac`) and the
// webhook body (base64 HMAC-SHA256 over the raw bytes), both keyed with the app secret.
import { createHmac } from 'node:crypto';

/** The message an OAuth redirect's `hmac` signs: every other parameter, sorted, `k=v&…`. */
export function oauthMessage(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

export const signOAuthQuery = (params: Record<string, string>, secret: string): string =>
  createHmac('sha256', secret).update(oauthMessage(params)).digest('hex');

export const signWebhook = (body: string | Buffer, secret: string): string =>
  createHmac('sha256', secret).update(body).digest('base64');
