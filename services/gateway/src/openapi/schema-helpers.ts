// Small builders of JSON Schema for the documentation-only response schemas.
export const str = (maxLength = 255, description?: string) => ({
  type: 'string',
  maxLength,
  ...(description ? { description } : {}),
});
export const nullable = (s: Record<string, unknown>) => ({ ...s, type: [s.type as string, 'null'] });
export const time = { type: 'string', format: 'date-time', maxLength: 40 };
export const int = (description?: string) => ({
  type: 'integer',
  format: 'int64',
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
  ...(description ? { description } : {}),
});
export const list = (items: unknown, maxItems = 100_000) => ({ type: 'array', maxItems, items });
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const obj = (required: string[], properties: Record<string, unknown>, description?: string) => ({
  type: 'object',
  required,
  properties,
  ...(description ? { description } : {}),
});
