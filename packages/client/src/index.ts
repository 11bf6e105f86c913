// @hallmark/client: the typed Hallmark API client (see README.md).
export {
  Hallmark,
  VERSION,
  type Data,
  type HallmarkOptions,
  type Schemas,
  type operations,
  type paths,
} from './client.js';
export { HallmarkError, type HallmarkErrorType } from './errors.js';
export { send, type Credentials, type RetryInfo, type TransportOptions } from './transport.js';
export { paginate, lists, type Page } from './paginate.js';
export {
  createOrderJob,
  downloadResults,
  jobProgress,
  orderIdempotencyKey,
  pollDelayMs,
  progressOf,
  watchJob,
  type JobProgress,
  type OrderBody,
  type ResultsDownload,
} from './bulk.js';
export { multipartBody, type FileSource, type UploadProgress } from './upload.js';
export {
  verifyEnterpriseSignature,
  verifyServiceSignature,
  verifyStandardWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type HeaderBag,
  type RawBody,
  type VerifyOptions,
} from './webhooks.js';
