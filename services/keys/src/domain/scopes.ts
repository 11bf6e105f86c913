// Permission scopes (spec: Authentication rules 7 and 8) and how a granted set covers a
// required scope (architecture.md: `X.*` grants every `X.` scope; `admin.*` grants all).
// Dependency-free so the gateway can reuse `hasScope`.

/** Scopes of the versioned surface (`/api/v1`), for production, test and restricted keys. */
export const VERSIONED_SCOPES = [
  'transactions.read',
  'transactions.create',
  'transactions.update',
  'transactions.delete',
  'transactions.*',
  'users.read',
  'users.create',
  'users.update',
  'users.delete',
  'users.*',
  'reports.read',
  'reports.create',
  'reports.export',
  'reports.*',
  'billing.read',
  'billing.invoices',
  'billing.payments',
  'billing.*',
  // A repairer's key (docs/service-records.md): append service records to the brand's
  // certificates and nothing else. Only an `admin.*` holder makes keys, so no key carries it
  // beyond what its maker had.
  'service_records.write',
  'admin.*',
] as const;

/** Scopes of the unversioned surface (`/api`), for enterprise keys. */
export const UNVERSIONED_SCOPES = ['bulk:mint', 'bulk:retry', 'voucher:create', 'pos:voucher'] as const;

export type VersionedScope = (typeof VERSIONED_SCOPES)[number];
export type UnversionedScope = (typeof UNVERSIONED_SCOPES)[number];
export type Scope = VersionedScope | UnversionedScope;

/** Full administrative access; also what a user session holds. */
export const ADMIN_SCOPE = 'admin.*';

const VERSIONED = new Set<string>(VERSIONED_SCOPES);
const UNVERSIONED = new Set<string>(UNVERSIONED_SCOPES);

export const isVersionedScope = (s: string): s is VersionedScope => VERSIONED.has(s);
export const isUnversionedScope = (s: string): s is UnversionedScope => UNVERSIONED.has(s);

/** True when `granted` covers `required`: exact match, `X.*` for `X.…`, or `admin.*`. */
export function hasScope(granted: readonly string[], required: string): boolean {
  for (const g of granted) {
    if (g === required || g === ADMIN_SCOPE) return true;
    if (g.endsWith('.*') && required.startsWith(g.slice(0, -1))) return true;
  }
  return false;
}
