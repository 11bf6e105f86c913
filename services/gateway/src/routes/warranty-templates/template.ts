// The enterprise's warranty template as answered: the certificates service's fields a warranty
// is filled from. Not a component of the document (it never was one): both endpoints carry
// the same inline schema.
import type { WarrantyTemplate as TemplateRecord } from '@hallmark/proto/certificates/v1/warranty';
import { bool, list, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';

export const WarrantyTemplate = Type.Object({
  id: str(64),
  name: str(200),
  fields: list(
    Type.Object({
      name: str(64),
      label: str(200),
      type: oneOf(['select', 'date', 'text', 'textarea', 'url']),
      required: bool,
      options: Type.Optional(list(str(64), 50)),
      description: str(500),
    }),
    100,
  ),
  createdAt: Type.Optional(time),
});

export function presentTemplate(t: TemplateRecord): Static<typeof WarrantyTemplate> {
  return {
    id: t.id,
    name: t.name,
    fields: JSON.parse(t.fields_json) as Static<typeof WarrantyTemplate>['fields'],
    createdAt: t.created_at,
  };
}
