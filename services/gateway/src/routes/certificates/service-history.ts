// A certificate's service history as anyone reads it (docs/service-records.md): the records
// its owner accepted, oldest performed first, with their photos and scanned documents as
// Hallmark archived them (`/media/<sha256>`). Shared by the public read, the verify page and
// the service-records endpoints. Pending and refused records never reach this shape.
import type { ServiceAttachment, ServiceHistoryEntry } from '@hallmark/proto/certificates/v1/certificates';
import { int, list, nullable, str, time, Type, type Static } from '../../endpoint/schema.js';

export const SERVICE_KINDS = ['repair', 'authentication_check', 'refurbishment', 'other'] as const;
export type ServiceKindName = (typeof SERVICE_KINDS)[number];
export const serviceKind = Type.Unsafe<ServiceKindName>({
  type: 'string',
  enum: [...SERVICE_KINDS],
  description: '`repair`, `authentication_check`, `refurbishment`, or `other` (with a `label`)',
});

export const ServiceAttachmentSchema = Type.Object({
  kind: Type.Unsafe<'photo' | 'document'>({ type: 'string', enum: ['photo', 'document'] }),
  url: str(80, 'Hallmark’s archived copy: /media/<sha256> (?w=480 or 1024 for a WebP of that width)'),
  sha256: str(64),
  contentType: str(64),
  width: int(),
  height: int(),
  caption: nullable(str(200)),
});

export const ServiceHistoryEntrySchema = Type.Object(
  {
    id: str(64),
    kind: serviceKind,
    label: nullable(str(100)),
    performedAt: time,
    performer: str(200, 'The workshop or person who did the work'),
    description: str(4000),
    attachments: list(ServiceAttachmentSchema, 10),
    acceptedAt: time,
  },
  { description: 'A service record the owner accepted' },
);

export const presentAttachment = (a: ServiceAttachment): Static<typeof ServiceAttachmentSchema> => ({
  kind: a.kind as 'photo' | 'document',
  url: `/media/${a.sha256}`,
  sha256: a.sha256,
  contentType: a.content_type,
  width: a.width,
  height: a.height,
  caption: a.caption ?? null,
});

export const presentServiceHistory = (
  entries: readonly ServiceHistoryEntry[],
): Static<typeof ServiceHistoryEntrySchema>[] =>
  entries.map((e) => ({
    id: e.id,
    kind: e.kind as ServiceKindName,
    label: e.label ?? null,
    performedAt: e.performed_at,
    performer: e.performer,
    description: e.description,
    attachments: e.attachments.map(presentAttachment),
    acceptedAt: e.accepted_at,
  }));
