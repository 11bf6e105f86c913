// Warranty: the pure domain (validation, end date, derived status, template fields), then
// SetWarranty and the warranty template through the handlers on a real PostgreSQL (no chain:
// a recorded, not yet minted certificate is enough).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { WarrantyInput } from '@hallmark/proto/certificates/v1/warranty';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { warrantyStatus } from '../src/domain/warranty.js';
import { addYears, computeEndDate, parseWarranty, WARRANTY_TEMPLATE_FIELDS } from '../src/warranty/domain.js';
import { createWarrantyHandlers } from '../src/warranty/rpc.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
createLogger('warranty-test', 'silent');

const valid = {
  period: '2',
  type: 'Manufacturer',
  startDate: '2026-01-15',
  coverage: 'Movement and case',
  claimProcess: 'Return to any boutique with the certificate',
  contactInfo: 'care@atelier.test',
};

function paramOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    return (err as HallmarkError).param;
  }
  throw new Error('expected a HallmarkError');
}

describe('warranty domain', () => {
  it('computes the end date from the period (Lifetime = 100 years; 29 Feb → 28 Feb) unless overridden', () => {
    expect(computeEndDate('2026-01-15', 2)).toBe('2028-01-15');
    expect(computeEndDate('2026-01-15', 'Lifetime')).toBe('2126-01-15');
    expect(addYears('2024-02-29', 1)).toBe('2025-02-28');
    expect(parseWarranty(valid)).toMatchObject({ period: 2, endDate: '2028-01-15' });
    expect(parseWarranty({ ...valid, period: 'lifetime' })).toMatchObject({
      period: 'Lifetime',
      endDate: '2126-01-15',
    });
    expect(parseWarranty({ ...valid, endDate: '2026-06-30' }).endDate).toBe('2026-06-30');
  });

  it('derives future / active / expired (both ends inclusive)', () => {
    const w = { startDate: '2026-01-15', endDate: '2027-01-15' };
    expect(warrantyStatus(w, new Date('2026-01-14T23:59:59Z'))).toBe('future');
    expect(warrantyStatus(w, new Date('2026-01-15T00:00:00Z'))).toBe('active');
    expect(warrantyStatus(w, new Date('2027-01-15T23:59:59Z'))).toBe('active');
    expect(warrantyStatus(w, new Date('2027-01-16T00:00:00Z'))).toBe('expired');
  });

  it('names the offending field', () => {
    expect(paramOf(() => parseWarranty({ ...valid, period: '4' }))).toBe('period');
    expect(paramOf(() => parseWarranty({ ...valid, period: undefined }))).toBe('period');
    expect(paramOf(() => parseWarranty({ ...valid, type: 'Lifetime' }))).toBe('type');
    expect(paramOf(() => parseWarranty({ ...valid, startDate: '2026-02-30' }))).toBe('startDate');
    expect(paramOf(() => parseWarranty({ ...valid, endDate: '2025-01-01' }))).toBe('endDate');
    expect(paramOf(() => parseWarranty({ ...valid, coverage: '  ' }))).toBe('coverage');
    expect(paramOf(() => parseWarranty({ ...valid, claimProcess: undefined }))).toBe('claimProcess');
    expect(paramOf(() => parseWarranty({ ...valid, contactInfo: 'x'.repeat(501) }))).toBe('contactInfo');
    expect(paramOf(() => parseWarranty({ ...valid, termsUrl: 'http://terms.test/' }))).toBe('termsUrl');
    expect(parseWarranty({ ...valid, termsUrl: 'https://terms.test/w', exclusions: 'Straps' })).toMatchObject(
      {
        termsUrl: 'https://terms.test/w',
        exclusions: 'Straps',
      },
    );
  });

  it('the template has the 9 warranty fields', () => {
    expect(WARRANTY_TEMPLATE_FIELDS.map((f) => f.name)).toEqual([
      'period',
      'type',
      'startDate',
      'endDate',
      'coverage',
      'exclusions',
      'claimProcess',
      'contactInfo',
      'termsUrl',
    ]);
  });
});

describe('SetWarranty and the warranty template (PostgreSQL)', () => {
  let database: string;
  let pool: Pool;
  let certs: ReturnType<typeof createCertificatesHandlers>;
  let api: ReturnType<typeof createWarrantyHandlers>;
  const enterprise = newId('enterprise');
  const principal = (enterpriseId = enterprise): Principal => ({
    enterprise_id: enterpriseId,
    livemode: true,
    actor_id: 'user_warranty',
    actor_type: 'user',
    scopes: [],
  });
  const input = (over: Partial<WarrantyInput> = {}): WarrantyInput => ({
    period: '2',
    type: 'Manufacturer',
    start_date: '2020-01-01',
    coverage: 'Movement',
    claim_process: 'Boutique',
    contact_info: 'care@atelier.test',
    ...over,
  });

  beforeAll(async () => {
    database = uniqueDatabaseName('certificates_warranty');
    pool = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database,
      migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
      max: 3,
    });
    const store = new CertificatesStore(pool, () => '0x5FbDB2315678afecb367f032d93F642f64180aa3');
    certs = createCertificatesHandlers({ store, provider: null });
    api = createWarrantyHandlers({ certificates: store });
  });

  afterAll(async () => {
    await closeTestDatabase(pool, database);
  });

  async function certificate(): Promise<string> {
    const res = await certs.mintBatch(
      {
        principal: principal(),
        idempotency_key: newId('request'),
        holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        items: [{ name: 'Watch', metadata_json: '{"artist":"Ada"}' }],
      },
      CALL,
    );
    return res.certificates[0]!.id;
  }

  it('sets then changes a warranty: metadata.warranty with its status, one provenance entry each, hash unchanged', async () => {
    const id = await certificate();
    const before = await certs.getPublicCertificate({ certificate_id: id }, CALL);

    const set = await api.setWarranty(
      { principal: principal(), certificate_id: id, warranty: input() },
      CALL,
    );
    expect(set.changed).toBe(true);
    expect(JSON.parse(set.warranty_json)).toMatchObject({ endDate: '2022-01-01', status: 'expired' });

    const again = await api.setWarranty(
      { principal: principal(), certificate_id: id, warranty: input() },
      CALL,
    );
    expect(again.changed).toBe(false);

    await api.setWarranty(
      {
        principal: principal(),
        certificate_id: id,
        warranty: input({ period: 'Lifetime', terms_url: 'https://atelier.test/terms' }),
      },
      CALL,
    );
    const pub = await certs.getPublicCertificate({ certificate_id: id }, CALL);
    const metadata = JSON.parse(pub.metadata_json) as Record<string, Record<string, unknown>>;
    expect(metadata.warranty).toMatchObject({
      period: 'Lifetime',
      type: 'Manufacturer',
      startDate: '2020-01-01',
      endDate: '2120-01-01',
      termsUrl: 'https://atelier.test/terms',
      status: 'active',
    });
    expect(metadata.artist).toBe('Ada');
    expect(pub.metadata_hash).toBe(before.metadata_hash);
    // The public read names the kind of actor, never its id (docs/security.md).
    expect(pub.provenance.map((p) => [p.kind, p.actor])).toEqual([
      ['warranty_set', 'user'],
      ['warranty_changed', 'user'],
    ]);
  });

  it('refuses invalid warranties with the param, and foreign or unknown certificates as not found', async () => {
    const id = await certificate();
    await expect(
      api.setWarranty(
        { principal: principal(), certificate_id: id, warranty: input({ terms_url: 'ftp://x.test' }) },
        CALL,
      ),
    ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'termsUrl' });
    await expect(
      api.setWarranty(
        { principal: principal(newId('enterprise')), certificate_id: id, warranty: input() },
        CALL,
      ),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
    await expect(
      api.setWarranty({ principal: principal(), certificate_id: 'cert_nope', warranty: input() }, CALL),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
  });

  it('init-warranty is idempotent per enterprise; get answers it to its enterprise only', async () => {
    const first = await api.initWarrantyTemplate({ principal: principal() }, CALL);
    const second = await api.initWarrantyTemplate({ principal: principal() }, CALL);
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ id: first.id, created: false });
    expect(first.id).toMatch(/^tmpl_/);
    expect((JSON.parse(first.fields_json) as unknown[]).length).toBe(9);
    const got = await api.getWarrantyTemplate({ principal: principal(), template_id: first.id }, CALL);
    expect(got).toMatchObject({ id: first.id, name: 'Warranty', created_at: first.created_at });
    await expect(
      api.getWarrantyTemplate({ principal: principal(newId('enterprise')), template_id: first.id }, CALL),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});
