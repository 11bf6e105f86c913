// The build of dist/index.d.ts compiles from this file alone: it must see the libraries' types.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./modules.d.ts" />
// @hallmark/verify: verifies a Hallmark proof bundle without Hallmark (README.md).
export { HALLMARK_CONTEXT, CREDENTIAL_CONTEXT, CREDENTIAL_CONTEXTS, VC_V2_CONTEXT_URL } from './context.js';
export {
  createDocumentLoader,
  didWebResolver,
  didWebUrl,
  fixedDidResolver,
  staticDocumentLoader,
  type DidDocument,
  type DidResolver,
  type DidWebOptions,
  type DocumentLoader,
  type DocumentLoaderOptions,
  type RemoteDocument,
} from './loader.js';
export { canonicalJson, metadataHashOf } from './canonical.js';
export {
  BUNDLE_FORMAT,
  BundleFormatError,
  parseBundle,
  type Credential,
  type CredentialSubject,
  type ProofBundle,
} from './bundle.js';
export { CERTIFICATES_ABI } from './rpc.js';
export {
  overallStatus,
  type Check,
  type CheckName,
  type CheckResult,
  type VerificationReport,
  type VerificationStatus,
} from './report.js';
export { verifyBundle, type VerifyOptions } from './verify.js';
