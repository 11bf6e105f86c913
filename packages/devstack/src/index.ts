// @hallmark/devstack: the infrastructure half of the one-command dev stack, shared by
// `pnpm start` and the tests. Importing it starts nothing and installs no handlers.
export { ensurePostgres, postgresAnswers, SYSTEM_POSTGRES_URL } from './postgres.js';
export type { PostgresOptions, PostgresHandle } from './postgres.js';
export { ensureNats, natsInfo, DEFAULT_NATS_URL } from './nats.js';
export type { NatsOptions, NatsHandle, NatsInfo } from './nats.js';
export { startRestate, registerDeployment } from './restate.js';
export type { RestateOptions, RestateHandle } from './restate.js';
export { startAnvil, jsonRpc, ANVIL_CHAIN_ID } from './anvil.js';
export type { AnvilOptions, AnvilHandle } from './anvil.js';
export { startSmtpSink } from './smtp.js';
export { readInbox, writeInbox, type InboxUrls } from './inbox.js';
export { startSmsServer } from './sms.js';
export { startOidcProvider } from './oidc.js';
export type { OidcProviderHandle, OidcProviderOptions } from './oidc.js';
export type { SmsServerHandle, SmsMessage } from './sms.js';
export type { SmtpSinkOptions, SmtpSinkHandle, SinkMessage } from './smtp.js';
export { spawnProcess } from './process.js';
export { stopAll, stopAllOnExit, track } from './registry.js';
export type { Stoppable } from './registry.js';
export type { SpawnOptions, ProcessHandle } from './process.js';
export { acquireStackLock } from './lock.js';
export { freePort, portInUse, waitFor, sleep } from './wait.js';
export type { WaitOptions } from './wait.js';
export {
  restateServerBinary,
  anvilBinary,
  postgresBinaries,
  natsServerBinary,
  debianBinary,
  debianBinariesAvailable,
  which,
} from './binaries.js';
export { startStack, REPO_ROOT, serviceEntryArgs, ANVIL_RELAYER_KEY } from './stack.js';
export { runRestoreDrill, postgresClientFor, databaseUrlOf, readProblem } from './restore-drill.js';
export type { DrillOptions, DrillResult } from './restore-drill.js';
export type { ProcessRow, RestartEvent, Stack, StackOptions } from './stack.js';
export {
  envSecretFingerprint,
  JWT_SECRET_FINGERPRINT_FILE,
  loadOrCreateSecrets,
  readStoredSecrets,
  secretFingerprint,
} from './secrets.js';
export type { StackSecrets } from './secrets.js';
export { signDevToken } from './tokens.js';
export type { DevTokenClaims } from './tokens.js';
export {
  startClusteredEngines,
  startNatsCluster,
  startPatroniCluster,
  startRestateCluster,
} from './cluster/index.js';
export type {
  ClusteredEngines,
  ClusterNode,
  NatsClusterHandle,
  PatroniClusterHandle,
  PatroniNode,
  RestateClusterHandle,
  RestateClusterNode,
} from './cluster/index.js';
