// The parts of the Restate module that need no Restate SDK (re-exported by the kit's main
// entry): the admin API steps, the request context, the settings, request identity and the
// keep-started worker.
export * from './admin.js';
export * from './context.js';
export * from './env.js';
export * from './identity.js';
export * from './keep-started.js';
