// The kit's Restate module (`@hallmark/kit/restate`): a service's endpoint (served and
// registered per release), the typed ingress client, the keep-started worker, the admin API
// steps of an upgrade, and the request context across the ingress. The main entry
// (`@hallmark/kit`) re-exports only the parts that need no Restate SDK, so services without
// workflows carry no SDK in their production tree.
export * from './base.js';
export * from './endpoint.js';
export * from './ingress.js';
