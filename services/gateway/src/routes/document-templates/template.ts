// A template's public shape (spec › Resources › Template), defined once, and its versions.
// Template answers carry caller-defined values through as they came (a step's `config`, a
// variable's `defaultValue`), which a schema would empty: they are documented by these
// schemas and sent as presented (`contentType` beside `schema`).
import { defineResource } from '../../endpoint/resource.js';
import { bool, int, list, nullable, oneOf, str, time, Type } from '../../endpoint/schema.js';

const anyJson = Type.Unknown({ description: 'Any JSON value' });

export const Condition = defineResource(
  'Condition',
  Type.Object({ field: str(100), operator: str(32), value: Type.Optional(anyJson) }),
);

export const Variable = Type.Object({
  name: str(100),
  type: str(32),
  required: bool,
  defaultValue: Type.Optional(anyJson),
});

export const Template = defineResource(
  'Template',
  Type.Object({
    id: str(64),
    name: str(200),
    type: str(32),
    kind: Type.Optional(str(32)),
    format: Type.Optional(nullable(str(16))),
    variables: Type.Optional(list(Variable, 100)),
    template: Type.Optional(str(1_000_000, 'Document templates: the markup with {{variables}}')),
    subject: Type.Optional(str(1000, 'Email templates')),
    body: Type.Optional(str(1_000_000, 'Email templates')),
    attachments: Type.Optional(list(Type.Object({ filename: str(255), templateId: str(64) }), 20)),
    trigger: Type.Optional(
      Type.Object({
        event: Type.Optional(str(100, 'Workflow templates: the event that starts the workflow')),
        conditions: list(Condition, 50),
      }),
    ),
    steps: Type.Optional(
      list(
        Type.Object({
          id: str(64),
          type: oneOf(['action', 'notification', 'approval', 'delay']),
          config: Type.Unsafe<Record<string, unknown>>({
            type: 'object',
            description: 'The step’s settings',
          }),
          onSuccess: nullable(str(64)),
          onFailure: nullable(str(64)),
        }),
        100,
      ),
    ),
    conditions: Type.Optional(list(Condition, 50)),
    styling: Type.Optional(
      Type.Object({
        brandColor: Type.Optional(str(32)),
        fontSize: Type.Optional(int()),
        fontFamily: Type.Optional(str(200)),
      }),
    ),
    version: Type.Optional(int()),
    ownerId: Type.Optional(str(255, 'The owner: a user’s session `sub`, or an API key id')),
    access: Type.Optional(list(str(16), 3)),
    livemode: Type.Optional(bool),
    createdAt: Type.Optional(time),
    updatedAt: Type.Optional(time),
  }),
);

export const TemplateVersion = Type.Object({
  id: str(64),
  templateId: str(64),
  version: int(),
  template: Type.Optional(
    Type.Unsafe<unknown>({
      type: 'object',
      description: 'Snapshot of the template’s content as of this version',
    }),
  ),
  variables: list(Variable, 100),
  createdAt: time,
  createdBy: Type.Optional(str(255, 'A user’s session `sub`, or an API key id')),
  changelog: Type.Optional(str(1000)),
});
