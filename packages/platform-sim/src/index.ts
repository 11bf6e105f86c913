// A local stand-in for the e-commerce platform, speaking its protocol for every call
// Hallmark makes (OAuth install, Admin GraphQL + REST fallback, signed webhooks) and able
// to fail on purpose. Point HALLMARK_PLATFORM_ADMIN_URL at `adminUrlTemplate`.
export { oauthMessage, signOAuthQuery, signWebhook } from './signing.js';
export { ACCESS_TOKEN_HEADER } from './server.js';
export type { FaultMode, FaultTarget } from './faults.js';
export type { Fulfillment, Order, Product, SentWebhook } from './state.js';
export { Simulator } from './sim.js';
export { startPlatformSim, type PlatformSim, type PlatformSimOptions } from './start.js';
export { DEMO_SHOP, startDemoPlatform, startDevPlatform, type DemoPlatform } from './demo.js';
export { startImageHost, type ImageHost } from './images.js';
