// Scope rules (architecture.md › Scopes): `X.*` grants every `X.` scope; `admin.*` grants
// everything, the unversioned `bulk:…`/`voucher:…` scopes included.
export function hasScope(granted: readonly string[], required: string): boolean {
  if (granted.includes('admin.*') || granted.includes(required)) return true;
  const dot = required.indexOf('.');
  return dot > 0 && granted.includes(`${required.slice(0, dot)}.*`);
}

/** True when any one of `required` is granted (a route may accept alternatives). */
export function hasAnyScope(granted: readonly string[], required: readonly string[]): boolean {
  return required.some((r) => hasScope(granted, r));
}
