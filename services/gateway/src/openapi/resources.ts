// Response schemas of the resources the gateway answers with (what the `present*` functions
// of the route files build). Documentation only: responses are serialised as built, and the
// e2e suites validate every answer against these, so they cannot drift from the code.
import { int, list, nullable, obj, ref, str, time } from './schema-helpers.js';

/** Examples in the spec's own terms, shown in /docs. */
/** What every CSV-form job answer carries (the created job's 202 adds its poll URL). */
export const CSV_JOB_REQUIRED = [
  'jobId',
  'status',
  'totalCount',
  'processedCount',
  'successCount',
  'failedCount',
  'failureCount',
  'createdAt',
] as const;

const EXAMPLES = {
  CsvJob: {
    jobId: 'job_2bX9qL0mT7cZp4aN1yV8kW3e',
    status: 'completed',
    totalCount: 1000,
    processedCount: 1000,
    successCount: 998,
    failedCount: 2,
    failureCount: 2,
    createdAt: '2025-06-01T10:00:00Z',
    updatedAt: '2025-06-01T10:03:12Z',
    completedAt: '2025-06-01T10:03:12Z',
    errors: [
      { row: 17, error: 'recipientEmail: not a valid e-mail address' },
      { row: 500, error: "imageFile 'missing.png' is not in the images ZIP" },
    ],
  },
};

export const resourceSchemas: Record<string, unknown> = {
  Condition: obj(['field', 'operator'], {
    field: str(100),
    operator: str(32),
    value: { description: 'Any JSON value' },
  }),
  Template: obj(['id', 'name', 'type'], {
    id: str(64),
    name: str(200),
    type: str(32),
    kind: str(32),
    format: nullable(str(16)),
    variables: list(
      obj(['name', 'type', 'required'], {
        name: str(100),
        type: str(32),
        required: { type: 'boolean' },
        defaultValue: { description: 'Any JSON value' },
      }),
      100,
    ),
    template: str(1_000_000, 'Document templates: the markup with {{variables}}'),
    subject: str(1000, 'Email templates'),
    body: str(1_000_000, 'Email templates'),
    attachments: list(obj(['filename', 'templateId'], { filename: str(255), templateId: str(64) }), 20),
    trigger: obj(['conditions'], {
      event: str(100, 'Workflow templates: the event that starts the workflow'),
      conditions: list(ref('Condition'), 50),
    }),
    steps: list(
      obj(['id', 'type', 'config', 'onSuccess', 'onFailure'], {
        id: str(64),
        type: { type: 'string', enum: ['action', 'notification', 'approval', 'delay'] },
        config: { type: 'object', description: 'The step’s settings' },
        onSuccess: nullable(str(64)),
        onFailure: nullable(str(64)),
      }),
      100,
    ),
    conditions: list(ref('Condition'), 50),
    styling: obj([], {
      brandColor: str(32),
      fontSize: int(),
      fontFamily: str(200),
    }),
    version: int(),
    ownerId: str(255, 'The owner: a user’s session `sub`, or an API key id'),
    access: list(str(16), 3),
    livemode: { type: 'boolean' },
    createdAt: time,
    updatedAt: time,
  }),
  CsvJob: obj(
    [...CSV_JOB_REQUIRED],
    {
      jobId: str(64),
      status: { type: 'string', enum: ['queued', 'processing', 'completed', 'failed', 'cancelled'] },
      totalCount: int(),
      processedCount: int(),
      successCount: int(),
      failedCount: int(),
      failureCount: int('The same as `failedCount` (the order form’s name), so either name reads both forms'),
      createdAt: time,
      updatedAt: time,
      retriedAt: { ...time, description: 'When the last retry was accepted; absent when never retried' },
      completedAt: time,
      estimatedCompletionTime: time,
      errors: list(obj(['row', 'error'], { row: int(), error: str(2000) }), 50_000),
      error: str(2000),
      pollUrl: str(200, 'Where to poll the job (also the 202’s Location)'),
    },
    'A bulk job, CSV form (spec › Resources › Bulk mint job, CSV form)',
  ),
};

for (const [name, example] of Object.entries(EXAMPLES))
  (resourceSchemas[name] as Record<string, unknown>).example = example;
