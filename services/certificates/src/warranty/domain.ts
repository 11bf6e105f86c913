// Warranty slice domain (spec › Resources › Certificate › Warranty metadata): validation of a
// warranty, its end date (start + period, Lifetime = start + 100 years, or a manual override)
// and the enterprise warranty template's 9 pre-configured fields. The stored warranty and its
// derived status are the certificate's (../domain/warranty.ts). Pure: no I/O.
import { invalidParam, missingParam } from '@hallmark/kit/errors';
import { WARRANTY_TYPES, type Warranty } from '../domain/warranty.js';

export const WARRANTY_PERIODS = ['1', '2', '3', '5', '10', 'Lifetime'] as const;

/** Lifetime warranties end 100 years after their start. */
const LIFETIME_YEARS = 100;

/** What a caller sends (field names as the API spells them; period as text). */
export interface WarrantyInput {
  period?: string;
  type?: string;
  startDate?: string;
  endDate?: string;
  coverage?: string;
  exclusions?: string;
  claimProcess?: string;
  contactInfo?: string;
  termsUrl?: string;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date YYYY-MM-DD (UTC), or null. */
function parseIsoDate(value: string): Date | null {
  const m = ISO_DATE.exec(value);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value ? d : null;
}

/** `date` + `years` calendar years; 29 February lands on 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const d = parseIsoDate(date);
  if (!d) throw new Error(`not an ISO date: ${date}`);
  const y = d.getUTCFullYear() + years;
  const m = d.getUTCMonth();
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const out = new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay)));
  return out.toISOString().slice(0, 10);
}

/** The end date implied by a period: start + period years (Lifetime: + 100 years). */
export function computeEndDate(startDate: string, period: number | 'Lifetime'): string {
  return addYears(startDate, period === 'Lifetime' ? LIFETIME_YEARS : period);
}

function requiredText(value: string | undefined, param: string, max: number): string {
  const v = (value ?? '').trim();
  if (!v) throw missingParam(param);
  if (v.length > max) throw invalidParam(param, `${param} must be at most ${max} characters.`);
  return v;
}

function optionalText(value: string | undefined, param: string, max: number): string | undefined {
  const v = (value ?? '').trim();
  if (!v) return undefined;
  if (v.length > max) throw invalidParam(param, `${param} must be at most ${max} characters.`);
  return v;
}

/** Validates a warranty; errors name the field (`period`, `startDate`, `termsUrl`, …). */
export function parseWarranty(input: WarrantyInput): Warranty {
  const periodText = (input.period ?? '').trim();
  if (!periodText) throw missingParam('period');
  const periodMatch = WARRANTY_PERIODS.find((p) => p.toLowerCase() === periodText.toLowerCase());
  if (!periodMatch) {
    throw invalidParam('period', `period must be one of 1, 2, 3, 5, 10 (years) or Lifetime.`);
  }
  const period: Warranty['period'] = periodMatch === 'Lifetime' ? 'Lifetime' : Number(periodMatch);

  const typeText = (input.type ?? '').trim();
  if (!typeText) throw missingParam('type');
  const type = WARRANTY_TYPES.find((t) => t === typeText);
  if (!type) throw invalidParam('type', `type must be one of ${WARRANTY_TYPES.join(', ')}.`);

  const startDate = (input.startDate ?? '').trim();
  if (!startDate) throw missingParam('startDate');
  if (!parseIsoDate(startDate))
    throw invalidParam('startDate', 'startDate must be an ISO date (YYYY-MM-DD).');

  let endDate = computeEndDate(startDate, period);
  const override = (input.endDate ?? '').trim();
  if (override) {
    if (!parseIsoDate(override)) throw invalidParam('endDate', 'endDate must be an ISO date (YYYY-MM-DD).');
    if (override < startDate) throw invalidParam('endDate', 'endDate must not be before startDate.');
    endDate = override;
  }

  const coverage = requiredText(input.coverage, 'coverage', 2000);
  const exclusions = optionalText(input.exclusions, 'exclusions', 2000);
  const claimProcess = requiredText(input.claimProcess, 'claimProcess', 2000);
  const contactInfo = requiredText(input.contactInfo, 'contactInfo', 500);
  const termsUrl = optionalText(input.termsUrl, 'termsUrl', 2048);
  if (termsUrl !== undefined) {
    let ok = false;
    try {
      ok = new URL(termsUrl).protocol === 'https:' && /^https:\/\/\S+$/i.test(termsUrl);
    } catch {
      ok = false;
    }
    if (!ok) throw invalidParam('termsUrl', 'termsUrl must be an https URL.');
  }

  const w: Warranty = { period, type, startDate, endDate, coverage, claimProcess, contactInfo };
  if (exclusions !== undefined) w.exclusions = exclusions;
  if (termsUrl !== undefined) w.termsUrl = termsUrl;
  return w;
}

/** Whether two stored warranties are the same (so setting it again changes nothing). */
export function sameWarranty(a: Warranty | null | undefined, b: Warranty): boolean {
  if (!a) return false;
  const keys: (keyof Warranty)[] = [
    'period',
    'type',
    'startDate',
    'endDate',
    'coverage',
    'exclusions',
    'claimProcess',
    'contactInfo',
    'termsUrl',
  ];
  return keys.every((k) => a[k] === b[k]);
}

// -- the enterprise warranty template ------------------------------------------------------

export const WARRANTY_TEMPLATE_NAME = 'Warranty';

export interface WarrantyTemplateField {
  name: string;
  label: string;
  type: 'select' | 'date' | 'text' | 'textarea' | 'url';
  required: boolean;
  options?: string[];
  description: string;
}

/** The 9 pre-configured fields of the warranty template, in form order. */
export const WARRANTY_TEMPLATE_FIELDS: readonly WarrantyTemplateField[] = [
  {
    name: 'period',
    label: 'Warranty period',
    type: 'select',
    required: true,
    options: ['1', '2', '3', '5', '10', 'Lifetime'],
    description: 'Years of coverage, or Lifetime (100 years).',
  },
  {
    name: 'type',
    label: 'Warranty type',
    type: 'select',
    required: true,
    options: [...WARRANTY_TYPES],
    description: 'Who covers what.',
  },
  {
    name: 'startDate',
    label: 'Start date',
    type: 'date',
    required: true,
    description: 'ISO date (YYYY-MM-DD) the coverage starts.',
  },
  {
    name: 'endDate',
    label: 'End date',
    type: 'date',
    required: false,
    description: 'Calculated as start date plus period; set it to override.',
  },
  { name: 'coverage', label: 'Coverage', type: 'textarea', required: true, description: 'What is covered.' },
  {
    name: 'exclusions',
    label: 'Exclusions',
    type: 'textarea',
    required: false,
    description: 'What is not covered.',
  },
  {
    name: 'claimProcess',
    label: 'Claim process',
    type: 'textarea',
    required: true,
    description: 'How to make a claim.',
  },
  {
    name: 'contactInfo',
    label: 'Contact information',
    type: 'text',
    required: true,
    description: 'Who to contact for a claim.',
  },
  {
    name: 'termsUrl',
    label: 'Terms and conditions',
    type: 'url',
    required: false,
    description: 'https URL of the full terms.',
  },
];
