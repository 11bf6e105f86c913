// Stable operationIds: generated clients and the CLI name their methods after these, so an
// id never changes once published. A route missing here fails the document build (and so
// `pnpm lint:openapi` and the contract tests) instead of getting a made-up name.
export const OPERATION_IDS: Record<string, string> = {};
