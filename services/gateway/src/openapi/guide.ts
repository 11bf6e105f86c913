// The guide at the top of /docs (the document's info.description): what a client written
// from this document alone needs beyond the operations — surfaces and errors, test and live
// mode, limits, the CSV columns and download names, and how to verify webhook signatures.
// Each `## ` section is also docs/api.md's text for it: `pnpm gen` copies it there (scripts/api-doc.ts).
const TS_SERVICE = `import { createHmac, timingSafeEqual } from 'node:crypto';

// X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex> during a secret rotation]
export function verifyServiceSignature(header: string, rawBody: string, secret: string): boolean {
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false; // 5-minute tolerance
  // Key: the secret's text as UTF-8 (whsec_… whole). Signed bytes: "<t>." + the raw body.
  const expected = createHmac('sha256', secret).update(\`\${t}.\${rawBody}\`).digest();
  return parts.some(([k, v]) => {
    if (k !== 'v1') return false;
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// X-Webhook-Signature: <hex> (enterprise subscriptions): HMAC of the raw JSON body alone.
export function verifyEnterpriseSignature(header: string, rawBody: string, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(header, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}`;

const PY = `import hashlib, hmac, time

def verify_service_signature(header: str, raw_body: bytes, secret: str) -> bool:
    parts = [p.split("=", 1) for p in header.split(",")]
    t = next((v for k, v in parts if k == "t"), None)
    if t is None or abs(time.time() - int(t)) > 300:  # 5-minute tolerance
        return False
    # Key: the secret's text as UTF-8 (whsec_... whole). Signed bytes: b"<t>." + raw body.
    expected = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return any(k == "v1" and hmac.compare_digest(v, expected) for k, v in parts)

def verify_enterprise_signature(header: str, raw_body: bytes, secret: str) -> bool:
    expected = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(header, expected)`;

const GO = `package hooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
)

// VerifyServiceSignature checks X-Service-Signature: t=<unix>,v1=<hex>[,v1=<hex>].
func VerifyServiceSignature(header string, rawBody []byte, secret string) bool {
	var t string
	var sigs []string
	for _, p := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(p, "=")
		if k == "t" {
			t = v
		} else if k == "v1" {
			sigs = append(sigs, v)
		}
	}
	ts, err := strconv.ParseInt(t, 10, 64)
	if err != nil || math.Abs(float64(time.Now().Unix()-ts)) > 300 {
		return false
	}
	// Key: the secret's text (whsec_... whole). Signed bytes: "<t>." + raw body.
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	for _, s := range sigs {
		if given, err := hex.DecodeString(s); err == nil && hmac.Equal(given, expected) {
			return true
		}
	}
	return false
}

// VerifyEnterpriseSignature checks X-Webhook-Signature: <hex HMAC-SHA256(secret, body)>.
func VerifyEnterpriseSignature(header string, rawBody []byte, secret string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(rawBody)
	given, err := hex.DecodeString(header)
	return err == nil && hmac.Equal(given, mac.Sum(nil))
}`;

const block = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\``;

export const GUIDE = `Certificates of authenticity on an EVM chain, bulk issuance, discount vouchers, API keys and signed webhooks.

## Surfaces and errors

The versioned surface lives under \`/api/v1\`; its errors are the envelope
\`{"error":{"type","code","message","param?","request_id"}}\`. The unversioned surface under \`/api\`
answers \`{"success":false,"error","code","param?","request_id"}\`. Every answer carries
\`X-Request-Id\`, and every error — including the framework's own (unknown route 404, 405 with
\`Allow\`, a path parameter over 512 characters 414) — is in its surface's shape with that id. Send
your own \`X-Request-Id\` (8–64 characters of letters, digits and \`_ - . :\`, starting with a letter
or digit, e.g. a UUID) and it is used as the request's id end to end; any other value is replaced by a
fresh \`req_…\`.

- A body that is not JSON (\`text/plain\`, a form, XML) to a JSON endpoint: 400 \`invalid_content_type\`.
- Numbers: every numeric field has bounds in this document; a value outside them, a fraction where an
  integer is asked, or a huge or non-finite value (\`1e308\`, \`1e999\`, \`9007199254740993\`) is a 400
  \`parameter_invalid\` naming the field as \`param\`. Money is in integer minor units; currencies are
  three capital letters (\`USD\`).
- Text: a string holding NUL or another C0 control other than tab, line feed and carriage return is a
  400 \`parameter_invalid\` naming the field.
- User ids: a \`userId\` anywhere in the API (audit logs, key shares, template grants) is the session
  token's \`sub\`. Sharing a key with a colleague who has not signed in yet provisions them.

## Test mode and live mode

Every object lives in one mode. A \`pk_test_\` key sees and changes test-mode objects only; \`pk_live_\`
and \`pk_restricted_\` keys live-mode objects only. A user session works in live mode unless the request
sends \`Hallmark-Mode: test\` (with a key that header may only repeat the key's own mode). In test mode a
session creates test keys: \`type: "test"\`, or an enterprise key (\`POST /api/enterprise/api-keys\`),
which then starts with \`pk_test_\`. Webhook endpoints made with a test key hear only test-mode events.
Asking for a discount voucher, webhook endpoint, enterprise webhook, API key or bulk job of the other mode answers 404 with a
hint, e.g. *No such voucher: 'vouch_…'; a similar object exists in live mode, but a test mode key was used to make this
request.* The hint is given only to a caller who would see the object in the other mode (an API key they may manage, an
object of their own enterprise); to anyone else the 404 is plain.

## Redeeming a discount voucher

\`POST /api/v1/vouchers/redeem\` takes the spec's \`{code, order_id}\`; \`amount\` (the order before discount, minor
units) is optional. With it the answer has \`original_amount\`, \`discount_applied\` and \`final_amount\`. Without it
a \`fixed_amount\` voucher's \`discount_applied\` is its value and a \`percentage\` voucher's is \`null\`: the use is
recorded and you apply \`voucher.value\` % (a number 1–100, up to two decimals) to your order; \`original_amount\`
and \`final_amount\` are \`null\`. \`POST /api/v1/vouchers/validate\` answers the same without using the voucher.

## Limits and rate-limit headers

Production keys: 1,000 requests a minute, 50,000 an hour; test and restricted keys 100 a minute by
default; \`rateLimit\` sets a key's own per-minute limit. Endpoint groups add their own (vouchers read
100/min, write 50/min, redeem 200/min; bulk create 10 jobs/hour, poll 100/15 min, download 50/hour,
retry and row fix together 5/hour, counting only accepted (2xx) attempts). \`X-RateLimit-Limit\`, \`-Remaining\` and \`-Reset\` (unix seconds) describe the window closest
to running out among those (a key with \`rateLimit: 5\` shows 5). A one-second burst guard also applies
(the type's default burst, or the key's own per-minute limit when lower, so a key with \`rateLimit: 5\` gets
its 5 back to back). Only an admitted request is counted, in every window; a refused one counts nowhere. A
429's \`X-RateLimit-*\` headers (Remaining 0), \`retry_after\`, \`Retry-After\` and \`limit_window\`
(\`minute\`, \`hour\`, \`burst\` or the group) all describe the window that refused it. Lists: \`page\` from 1, \`limit\` 1–100 (default 20).

## Open verification and CORS

\`GET /api/certificate/verify/{id}\` verifies a certificate without a credential and answers the checks
as JSON: \`verified\` (every check passed), \`burned\`, \`stolen\` (an open lost/stolen report, or null), \`checks\` (\`record_found\`, \`on_chain\`,
\`holder\`, \`metadata\`, \`not_burned\`, and \`image\` when the metadata records an image hash; each
with \`passed\` and a \`detail\` saying why), \`verifiedAt\`, the public read's fields (\`name\`,
\`metadata\`, \`provenance\`, \`issuer\`), \`chain\` (\`chainId\`, \`contract\`, \`tokenId\`,
\`transactionHash\`, \`blockNumber\`, \`merkleRoot\`, \`metadataHash\`, \`holder\`, \`owner\`) and absolute
\`links\` (\`verifyPage\`, \`qrCode\`, and once minted \`proofBundle\`, \`credential\`, \`metadata\`). A failed
check is a 200 with \`verified: false\`; an unknown id is a 404 \`resource_not_found\`, a malformed one
(not \`cert_…\`) a 400 \`parameter_invalid\`. It is the object the verification page shows, rate limited
like the page (60 a minute per client address) and cached for a few seconds (\`ETag\`, 304).

Every public endpoint (no credential: the public read, the token metadata, this verification, the
verification page and its QR codes, and every public endpoint added later) answers
\`Access-Control-Allow-Origin: *\` and \`Cross-Origin-Resource-Policy: cross-origin\`, exposes \`ETag\`,
\`Link\`, \`Content-Disposition\`, \`X-Request-Id\` and the rate-limit headers, and answers a CORS
preflight (\`OPTIONS\`) with 204. Never with credentials: no \`Access-Control-Allow-Credentials\`, and
neither \`Authorization\` nor \`X-Api-Key\` is an allowed request header. Authenticated endpoints send no CORS header at all,
so a page on another origin cannot call them from a browser: call those from your server.

## Bulk mint files

CSV columns (case-sensitive): \`name\`, \`description\`, \`category\`, \`recipientEmail\` (required);
\`imageUrl\` (required without an images ZIP); optional \`recipientName\`, \`imageFile\` (the file in the ZIP
that is this row's image; else \`<row>.png|jpg|jpeg|webp\`, else the row's name), \`expiryDays\` (default
30), \`gtin\` and \`serial\` (both or neither: a GS1 GTIN-8/12/13/14 with its check digit and a serial
of 1–20 GS1 CSET 82 characters; the certificate's QR codes then encode its GS1 Digital Link, see
docs/digital-link.md), \`passportUrl\` (https link to the product passport) and any number of
\`attribute_<Name>\`. Rows are validated by the job: the 202 counts start at 0 and
a bad row ends as a row error. \`GET /api/bulk-mint/template/csv\` has every column with an example row.

Downloads: \`csv\` has the columns \`row, name, status, certificateId, voucherId, referenceNumber,
recipientEmail, error\`; \`zip\` has \`metadata/<row>-<certificateId>.json\` for each minted certificate and
\`images/<row>-<certificateId>.<png|jpg|webp|gif>\` for images uploaded in the ZIP, \`<row>\` zero-padded to
five digits (\`metadata/00017-cert_….json\`).
Both are streamed as they are made, so any job size downloads in flat memory.

Results of an order job: \`GET /api/bulk-mint/:jobId\` answers \`results.vouchers\` one page at a
time, in item order: at most \`vouchersLimit\` (default and most 1000), with \`results.nextCursor\` the
cursor of the next page (pass it as \`vouchersCursor\`) or null on the last one. A job of up to 1000
vouchers is answered whole, as before; a poller of a larger job reads the pages it wants.
\`?vouchers=all\` answers every voucher in one answer, streamed (\`nextCursor\` null).

Counts: the CSV form names its failures \`failedCount\`, the order form's summary \`failureCount\` (the
spec's names); both forms answer both names, the same number, so a client reads either. A retried job
has \`retriedAt\`, when its last retry was accepted: its time since then is the retry's own.

## Verifying webhook signatures

Versioned endpoints: \`X-Service-Signature: t=<unix seconds>,v1=<hex>\`. The hex is HMAC-SHA256 keyed with
the endpoint secret's text exactly as returned (\`whsec_…\`, UTF-8 bytes, prefix included) over the bytes
\`<t>.<raw request body>\`. During a secret rotation one \`v1=\` per live secret is sent: accept any. Compare
in constant time and refuse timestamps more than 5 minutes away. (The same deliveries also carry
Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`, keyed with the
base64-decoded part after \`whsec_\`.)

Enterprise subscriptions: \`X-Webhook-Signature: <hex>\`, HMAC-SHA256 keyed with the subscription secret's
text over the raw JSON body alone; \`X-Webhook-Event\` names the event and \`X-Webhook-Timestamp\` is ISO 8601.

Always verify the raw body as received, before parsing it.

Two vouchers, two event names: creating a discount voucher (\`POST /api/v1/vouchers\`) is the versioned
type \`discount_voucher.created\` (\`data.object\` the voucher), for \`/api/v1/webhooks\` endpoints; the
enterprise event \`voucher.created\` (and \`voucher.minted\`) is always a *certificate* voucher of a bulk
job, for \`/api/enterprise/webhooks\` subscriptions.

TypeScript (Node):

${block('ts', TS_SERVICE)}

Python:

${block('python', PY)}

Go:

${block('go', GO)}

## Webhooks on a laptop: \`GET /api/v1/listen\`

Webhook URLs must be public HTTPS, so a receiver on a laptop cannot be reached. Instead, open a listen
stream (what \`hallmark listen --forward-to http://localhost:3000/hook\` does): \`GET /api/v1/listen\`
with an \`admin.*\` key or a session, \`Accept: text/event-stream\`, optional \`events=transaction.completed,bulk.job.completed\`
(versioned and enterprise types; absent: all) and \`mode=live\` (default: a key's own mode, a session's test).
It is a real subscription (a listen session, \`lsn_…\`) with its own delivery records, ended when you
disconnect. The first Server-Sent Event, \`session\`, carries \`{id, secret, livemode, events, created_at}\`;
every later event is named after the event type, its \`id\` is the delivery id and its data is
\`{id, event_id, type, attempt, headers, body}\`: \`body\` is the exact string an endpoint would get and
\`headers\` the exact headers (the schemes above), signed with the session's \`secret\`. Forward
\`body\` with \`headers\` to your local receiver and verify with that secret: your production code runs
unchanged. Lines starting with \`:\` are keep-alives. \`GET /api/v1/listen/sessions/{id}/deliveries\` lists what a
session got, and what it missed after you disconnected. The reusable forwarder is \`@hallmark/listen\`
(\`listen({baseUrl, credential, events, forwardTo, onEvent})\`).
`;
