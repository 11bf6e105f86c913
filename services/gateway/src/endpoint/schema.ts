// TypeBox builders for the gateway's wire schemas. TypeBox schemas are plain JSON Schema, so
// the one object is what AJV validates a request with, what fast-json-stringify serialises an
// answer with and what the OpenAPI document shows, and `Static<typeof X>` is its TypeScript
// type. These helpers keep the house's conventions: bounded strings and integers (an int64
// `format` so generated clients pick the type), nullables as a type list.
import { Type, type Static, type TSchema, type TString } from '@sinclair/typebox';

export { Type, type Static, type TSchema };

export const str = (maxLength = 255, description?: string): TString =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

export const time = Type.String({ format: 'date-time', maxLength: 40 });

export const int = (description?: string) =>
  Type.Integer({
    format: 'int64',
    minimum: -Number.MAX_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    ...(description ? { description } : {}),
  });

export const bool = Type.Boolean();

export const list = <T extends TSchema>(items: T, maxItems = 100_000) => Type.Array(items, { maxItems });

/** `T | null`, written as a type list (`type: ['string', 'null']`) as the document always has. */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type as string, 'null'] });

/** A closed request object: unknown fields are refused (parameter_unknown), not dropped. */
export const closed = <P extends Record<string, TSchema>>(
  properties: P,
  options: { minProperties?: number; description?: string } = {},
) => Type.Object(properties, { additionalProperties: false, ...options });

/** `{success: true, data}`: the answer of the unversioned surface (/api). */
export const wrapped = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

/** A path parameter that is an id (≤ 64 characters). */
export const idParams = <K extends string>(name: K) =>
  closed({ [name]: Type.String({ minLength: 1, maxLength: 64 }) } as { [P in K]: TString });

/** One of fixed strings, typed as a string (answers carry the services' plain strings). */
export const oneOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
