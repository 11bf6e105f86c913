// Response schemas of resources the gateway answers with, for routes not yet declared. Every
// resource is now declared with `defineResource` beside its `present` function; a new one
// belongs there, not here (the build refuses a name defined in both).
export const resourceSchemas: Record<string, unknown> = {};
