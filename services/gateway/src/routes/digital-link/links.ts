// The links a GS1 Digital Link URI of a Hallmark certificate resolves to (docs/digital-link.md),
// typed with the GS1 Web Vocabulary's link types, and their two renderings: an RFC 9264 linkset
// (application/linkset+json) and an RFC 8288 `Link` header. Pure.
import type { ResolveDigitalLinkResponse } from '@hallmark/proto/certificates/v1/verification';

export const GS1_VOC = 'https://gs1.org/voc/';

export interface ResolvedLink {
  /** The GS1 link type, without the prefix: `defaultLink`, `pip`, `verificationService`, … */
  type: string;
  href: string;
  title: string;
  /** Media type of the target, when Hallmark knows it. */
  mediaType?: string;
}

const base = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

/** The Digital Link URI of a path (`/01/…/21/…`) under the public URL. */
export function digitalLinkUrl(publicUrl: string, path: string): string {
  return `${base(publicUrl)}${path}`;
}

/**
 * The item's links, the default first. The verify page is the default (what a phone scanning
 * the QR code opens); the verification JSON is the machine-readable verification service; the
 * credential and the proof bundle are certification information; the passport, when the
 * certificate has one, the product information page.
 */
export function linksOf(r: ResolveDigitalLinkResponse, publicUrl: string): ResolvedLink[] {
  const id = encodeURIComponent(r.certificate_id);
  const root = base(publicUrl);
  const links: ResolvedLink[] = [
    {
      type: 'defaultLink',
      href: `${root}/verify/${id}`,
      title: 'Certificate of authenticity (verification page)',
      mediaType: 'text/html',
    },
    {
      type: 'verificationService',
      href: `${root}/api/certificate/verify/${id}`,
      title: 'Verification of the certificate (JSON)',
      mediaType: 'application/json',
    },
    {
      type: 'certificationInfo',
      href: `${root}/api/certificate/${id}/credential`,
      title: 'Verifiable credential of the certificate (W3C VCDM 2.0)',
    },
    {
      type: 'certificationInfo',
      href: `${root}/api/certificate/${id}/proof`,
      title: 'Proof bundle of the certificate (verifiable without Hallmark)',
      mediaType: 'application/json',
    },
  ];
  const passport = r.passport_url ? httpsHref(r.passport_url) : null;
  if (passport)
    links.push({ type: 'pip', href: passport, title: 'Product passport', mediaType: 'text/html' });
  return links;
}

/**
 * The passport link as a serialised URL (characters a Link header or Location could not carry
 * are percent-encoded by the URL parser), or null if it is not https (checked at mint too).
 */
function httpsHref(raw: string): string | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The link of a requested `linkType` (`gs1:pip` or the full URI), or null when it has none. */
export function linkOfType(links: ResolvedLink[], linkType: string): ResolvedLink | null {
  const type = linkType.startsWith('gs1:')
    ? linkType.slice(4)
    : linkType.startsWith(GS1_VOC)
      ? linkType.slice(GS1_VOC.length)
      : null;
  return type === null ? null : (links.find((l) => l.type === type) ?? null);
}

/** RFC 9264 linkset: one context object anchored at the Digital Link URI, relations as GS1 URIs. */
export function linksetOf(anchor: string, links: ResolvedLink[]) {
  const context: Record<string, unknown> = { anchor };
  for (const l of links) {
    const rel = `${GS1_VOC}${l.type}`;
    const target = { href: l.href, title: l.title, ...(l.mediaType ? { type: l.mediaType } : {}) };
    ((context[rel] ??= []) as unknown[]).push(target);
  }
  return { linkset: [context] };
}

/** A quoted-string parameter of a Link header (RFC 8288 §3): `"` and `\` escaped. */
const quoted = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * The `Link` header of a resolution: every link with its GS1 relation, the linkset itself
 * (rel="linkset", RFC 9264 §6) and the canonical URI (owl:sameAs, as GS1's resolvers give it).
 */
export function linkHeaderOf(anchor: string, links: ResolvedLink[]): string {
  const parts = links.map(
    (l) =>
      `<${l.href}>; rel=${quoted(`${GS1_VOC}${l.type}`)}; title=${quoted(l.title)}` +
      (l.mediaType ? `; type=${quoted(l.mediaType)}` : ''),
  );
  parts.push(`<${anchor}?linkType=all>; rel="linkset"; type="application/linkset+json"`);
  parts.push(`<${anchor}>; rel="http://www.w3.org/2002/07/owl#sameAs"`);
  return parts.join(', ');
}
