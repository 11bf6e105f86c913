// The success answer of each operation (`METHOD /path`) not declared with defineEndpoint: its
// status, meaning and schema. Every gateway route is declared now, so the table is empty; it
// stays (with operation-ids.ts and resources.ts) until finish.ts stops reading side tables.

type Success = {
  status: string;
  description: string;
  schema?: unknown;
  contentType?: string;
  /** Other statuses answered with the same body: [status, meaning]. */
  also?: [string, string][];
};

/** Success answer per operation (`METHOD /path`); the default is 200 with a JSON object. */
export const SUCCESS: Record<string, Success> = {};
