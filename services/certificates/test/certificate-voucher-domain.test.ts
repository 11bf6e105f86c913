// Certificate voucher rules without I/O: reference numbers (shape, check symbol, typo
// detection, forgiving input), CreateVouchers validation, status and claim refusals.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError, newId } from '@hallmark/kit';
import {
  checkSymbol,
  claimRefusal,
  legacyCheckSymbol,
  newReferenceNumber,
  parseCreateVouchers,
  parseReferenceNumber,
  voucherEventObject,
  voucherStatus,
  type VoucherRecord,
} from '../src/certificate-vouchers/domain.js';

const SHAPE = /^HM-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]$/;
const DIGITS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function errorOf(fn: () => unknown): HallmarkError {
  try {
    fn();
  } catch (err) {
    return err as HallmarkError;
  }
  throw new Error('expected a refusal');
}

const bodyOf = (ref: string) => ref.slice(3, 7) + ref.slice(8, 12);

/** Every single substitution and adjacent swap of body+check changes what `check` says. */
function expectEveryTypoCaught(body: string, check: (body: string) => string, checkDigits: string) {
  const whole = body + check(body);
  const valid = (s: string) =>
    [...s.slice(0, 8)].every((c) => DIGITS.includes(c)) && check(s.slice(0, 8)) === s[8];
  for (let i = 0; i < whole.length; i++) {
    const alphabet = i < 8 ? DIGITS : checkDigits;
    for (const d of alphabet) {
      if (d === whole[i]) continue;
      expect(valid(whole.slice(0, i) + d + whole.slice(i + 1))).toBe(false);
    }
    if (i + 1 < whole.length && whole[i] !== whole[i + 1]) {
      const swapped = whole.slice(0, i) + whole[i + 1] + whole[i] + whole.slice(i + 2);
      expect(valid(swapped)).toBe(false);
    }
  }
}

describe('reference numbers', () => {
  it('have the shape HM-XXXX-XXXX-C with every character, the check included, from Crockford base32', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const ref = newReferenceNumber();
      expect(ref).toMatch(SHAPE);
      expect(parseReferenceNumber(ref)).toBe(ref);
      seen.add(ref);
    }
    expect(seen.size).toBe(2000);
  });

  it('check character is Damm over GF(32): the fold of body and check ends at zero', () => {
    expect(checkSymbol('00000000')).toBe('0');
    expect(checkSymbol('00000001')).toBe('2'); // α·1
    expect(checkSymbol('0000000G')).toBe('5'); // α·16 = x⁵ = x² + 1
    // Every body, whatever its value, gets a check from the 32 readable symbols.
    for (let n = 0; n < 200; n++) expect(DIGITS).toContain(checkSymbol(bodyOf(newReferenceNumber())));
  });

  it('new check catches every single mistyped symbol and every swap of two adjacent symbols, check included', () => {
    for (let n = 0; n < 50; n++) expectEveryTypoCaught(bodyOf(newReferenceNumber()), checkSymbol, DIGITS);
  });

  it('legacy mod-37 numbers (check may be * ~ $ = U) stay valid on lookup and keep their typo detection', () => {
    expect(legacyCheckSymbol('00000000')).toBe('0');
    expect(legacyCheckSymbol('0000000Z')).toBe('Z'); // 31
    expect(legacyCheckSymbol('00000010')).toBe('*'); // 32
    expect(legacyCheckSymbol('00000014')).toBe('U'); // 36
    expect(legacyCheckSymbol('00000015')).toBe('0'); // 37
    expect(parseReferenceNumber('HM-0000-0010-*')).toBe('HM-0000-0010-*');
    expect(parseReferenceNumber('hm 0000 0014 u')).toBe('HM-0000-0014-U');
    const body = 'B1W8X6K7';
    const legacy = `HM-B1W8-X6K7-${legacyCheckSymbol(body)}`;
    expect(parseReferenceNumber(legacy)).toBe(legacy);
    expect(parseReferenceNumber(`HM-B1W8-X6K7-${checkSymbol(body)}`)).toBe(
      `HM-B1W8-X6K7-${checkSymbol(body)}`,
    );
    for (let n = 0; n < 50; n++) {
      expectEveryTypoCaught(bodyOf(newReferenceNumber()), legacyCheckSymbol, `${DIGITS}*~$=U`);
    }
  });

  it('rejects a number whose check matches neither scheme', () => {
    for (let n = 0; n < 200; n++) {
      const body = bodyOf(newReferenceNumber());
      const wrong = [...DIGITS].find((d) => d !== checkSymbol(body) && d !== legacyCheckSymbol(body))!;
      expect(parseReferenceNumber(`HM-${body.slice(0, 4)}-${body.slice(4)}-${wrong}`)).toBeNull();
      expect(parseReferenceNumber(`HM-${body.slice(0, 4)}-${body.slice(4)}-#`)).toBeNull();
    }
  });

  it('accepts what a person types: any case, no prefix or hyphens, spaces, O for 0 and I/L for 1', () => {
    const body = '0A1B2C3D';
    const ref = `HM-0A1B-2C3D-${checkSymbol(body)}`; // Damm check
    expect(parseReferenceNumber(ref.toLowerCase())).toBe(ref);
    expect(parseReferenceNumber(`0A1B2C3D${checkSymbol(body)}`)).toBe(ref);
    expect(parseReferenceNumber(` hm 0a1b 2c3d ${checkSymbol(body)} `)).toBe(ref);
    expect(parseReferenceNumber(`HM-OAIB-2C3D-${checkSymbol(body)}`)).toBe(ref);
    expect(parseReferenceNumber(`HM-0ALB-2C3D-${checkSymbol(body)}`)).toBe(ref);
    expect(parseReferenceNumber('HM-0A1B-2C3D')).toBeNull();
    expect(parseReferenceNumber(`HM-0A1B-2C3U-${checkSymbol(body)}`)).toBeNull(); // U is check-only
    expect(parseReferenceNumber('')).toBeNull();
    expect(parseReferenceNumber(newId('certificateVoucher'))).toBeNull();
  });
});

describe('CreateVouchers validation', () => {
  const cert = newId('certificate');
  it('defaults expiry to 30 days and metadata to {}, and hashes the request for replays', () => {
    const a = parseCreateVouchers({ idempotencyKey: 'k', items: [{ certificate_id: cert }] });
    expect(a.items[0]).toEqual({
      certificateId: cert,
      metadata: {},
      recipientEmail: null,
      recipientName: null,
      expiryDays: 30,
      lineItemGid: null,
    });
    const b = parseCreateVouchers({
      idempotencyKey: 'k',
      items: [{ certificate_id: cert, expiry_days: 31 }],
    });
    expect(b.requestHash).not.toBe(a.requestHash);
  });

  it('names the offending parameter', () => {
    expect(errorOf(() => parseCreateVouchers({ idempotencyKey: '', items: [] }))).toMatchObject({
      code: 'parameter_missing',
      param: 'idempotency_key',
    });
    expect(errorOf(() => parseCreateVouchers({ idempotencyKey: 'k', items: [] }))).toMatchObject({
      code: 'parameter_missing',
      param: 'items',
    });
    const bad = (item: object) => errorOf(() => parseCreateVouchers({ idempotencyKey: 'k', items: [item] }));
    expect(bad({ certificate_id: cert, recipient_email: 'not-an-email' })).toMatchObject({
      code: 'parameter_invalid',
      param: 'items[0].recipient_email',
    });
    expect(bad({ certificate_id: cert, expiry_days: 3651 })).toMatchObject({
      param: 'items[0].expiry_days',
    });
    expect(bad({ certificate_id: cert, metadata_json: '[1]' })).toMatchObject({ param: 'items[0].metadata' });
    expect(bad({ certificate_id: 'cert_nope' })).toMatchObject({ code: 'resource_not_found' });
    expect(
      errorOf(() =>
        parseCreateVouchers({
          idempotencyKey: 'k',
          items: [{ certificate_id: cert }, { certificate_id: cert }],
        }),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'items[1].certificate_id' });
  });
});

describe('status and claim refusals', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const voucher = (over: Partial<VoucherRecord> = {}): VoucherRecord => ({
    id: newId('certificateVoucher'),
    enterpriseId: newId('enterprise'),
    livemode: true,
    url: 'https://h.test/vouchers/v_x',
    referenceNumber: newReferenceNumber(),
    certificateId: newId('certificate'),
    metadata: { sku: 'A' },
    lineItemGid: null,
    expiresAt: new Date('2026-03-02T00:00:00Z'),
    createdAt: new Date('2026-02-01T00:00:00Z'),
    claimedBy: null,
    claimedAt: null,
    voidedAt: null,
    voidReason: null,
    claimToAddress: null,
    claimTransferKey: null,
    tokenId: 7n,
    transactionHash: '0xabc',
    blockNumber: 3,
    certificateStatus: 'minted',
    ...over,
  });
  const user = newId('user');
  const who = { userId: user, email: 'Ada@Example.com', recipientEmail: 'ada@example.com' };

  it('derives available, expired and claimed (a claim stays claimed after the expiry)', () => {
    expect(voucherStatus(voucher(), now)).toBe('available');
    expect(voucherStatus(voucher({ expiresAt: now }), now)).toBe('expired');
    expect(voucherStatus(voucher({ expiresAt: now, claimedAt: now, claimedBy: user }), now)).toBe('claimed');
  });

  it('refuses expired (with the date), claimed by another, another e-mail, not minted; the same recipient replays', () => {
    expect(claimRefusal(voucher(), who, now)).toBeNull();
    const expired = claimRefusal(voucher({ expiresAt: new Date('2026-02-28T09:30:00Z') }), who, now);
    expect(expired).toMatchObject({ code: 'validation_failed' });
    expect((expired as HallmarkError).message).toBe('This voucher expired on 2026-02-28 at 09:30 UTC.');
    const other = claimRefusal(voucher({ claimedBy: newId('user'), claimedAt: now }), who, now);
    expect((other as HallmarkError).message).toMatch(/already been claimed/);
    expect(claimRefusal(voucher({ claimedBy: user, claimedAt: now }), who, now)).toBe('replay');
    expect(claimRefusal(voucher(), { ...who, email: 'eve@example.com' }, now)).toMatchObject({
      code: 'insufficient_permissions',
    });
    const pendingCheck = claimRefusal(voucher({ certificateStatus: 'pending', tokenId: null }), who, now);
    expect((pendingCheck as HallmarkError).message).toMatch(/try again shortly/);
  });

  it('a voided voucher shows voided and refuses every claim; a claim made before the void stays claimed', () => {
    const voided = voucher({ voidedAt: now, voidReason: 'The order was cancelled.' });
    expect(voucherStatus(voided, now)).toBe('voided');
    expect((claimRefusal(voided, who, now) as HallmarkError).message).toMatch(/voided/);
    expect(voucherStatus(voucher({ voidedAt: now, claimedAt: now, claimedBy: user }), now)).toBe('claimed');
  });

  it('fails closed: a voucher with a recipient needs a session proving that address; without one it is a bearer voucher', () => {
    for (const email of [null, '', '   ', 'ada@example.com.evil', 'eve@example.com']) {
      expect(claimRefusal(voucher(), { ...who, email }, now)).toMatchObject({
        code: 'insufficient_permissions',
      });
    }
    expect(claimRefusal(voucher(), { ...who, email: '  ADA@example.COM ' }, now)).toBeNull();
    expect(claimRefusal(voucher(), { ...who, email: null, recipientEmail: null }, now)).toBeNull();
    const pending = claimRefusal(voucher({ certificateStatus: 'pending', tokenId: null }), who, now);
    expect((pending as HallmarkError).message).toMatch(/try again shortly/);
  });

  it('the event view never carries recipient data', () => {
    const view = voucherEventObject(voucher(), now);
    expect(Object.keys(view).sort()).toEqual(
      [
        'blockNumber',
        'certificateId',
        'createdAt',
        'expiresAt',
        'id',
        'lineItemGid',
        'metadata',
        'referenceNumber',
        'status',
        'tokenId',
        'transactionHash',
        'url',
        'voidReason',
      ].sort(),
    );
  });
});
