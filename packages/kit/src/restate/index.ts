// The kit's Restate module: a service's endpoint (versioned per release), the typed ingress
// client, the keep-started worker, the admin API steps of an upgrade, and the request context
// across the ingress.
export * from './admin.js';
export * from './context.js';
export * from './endpoint.js';
export * from './identity.js';
export * from './ingress.js';
export * from './keep-started.js';
