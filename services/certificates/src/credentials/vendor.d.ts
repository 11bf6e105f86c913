// Types of the Digital Bazaar libraries the credentials slice uses (they ship JavaScript only):
// just the calls made here, as their READMEs and sources document them.
declare module '@digitalbazaar/vc' {
  export type DocumentLoader = (url: string) => Promise<{ document: unknown; documentUrl: string }>;
  export function issue(opts: {
    credential: object;
    suite: object;
    documentLoader: DocumentLoader;
  }): Promise<Record<string, unknown>>;
  export function verifyCredential(opts: {
    credential: object;
    suite: object | object[];
    documentLoader: DocumentLoader;
    checkStatus?: (opts: { credential: object }) => Promise<{ verified: boolean; error?: Error }>;
    now?: Date;
  }): Promise<{ verified: boolean; error?: Error & { errors?: Error[] }; results?: unknown[] }>;
}

declare module '@digitalbazaar/ecdsa-multikey' {
  export interface EcdsaKeyPair {
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    secretKeyMultibase?: string;
    export(opts: {
      publicKey?: boolean;
      secretKey?: boolean;
      includeContext?: boolean;
    }): Promise<Record<string, string>>;
    signer(): { id: string; algorithm: string; sign(opts: { data: Uint8Array }): Promise<Uint8Array> };
  }
  export function generate(opts: { curve: 'P-256'; id?: string; controller?: string }): Promise<EcdsaKeyPair>;
  export function from(key: {
    type?: 'Multikey';
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    secretKeyMultibase?: string;
  }): Promise<EcdsaKeyPair>;
}

declare module '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite' {
  export const cryptosuite: object;
}

declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(opts: { signer?: object; cryptosuite: object; date?: Date | string });
  }
}

declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/data-integrity-context' {
  const ctx: { CONTEXT_URL: string; CONTEXT: object };
  export default ctx;
}

declare module '@digitalbazaar/multikey-context' {
  const ctx: { CONTEXT_URL: string; CONTEXT: object };
  export default ctx;
}

declare module '@digitalbazaar/vc-bitstring-status-list' {
  export class BitstringStatusList {
    constructor(opts: { length?: number; buffer?: Uint8Array });
    length: number;
    setStatus(index: number, status: boolean): void;
    getStatus(index: number): boolean;
    encode(): Promise<string>;
  }
  export function createList(opts: { length: number }): Promise<BitstringStatusList>;
  export function decodeList(opts: { encodedList: string }): Promise<BitstringStatusList>;
  export function createCredential(opts: {
    id: string;
    list: BitstringStatusList;
    statusPurpose: string;
    context?: string[];
  }): Promise<Record<string, unknown> & { credentialSubject: Record<string, unknown> }>;
  export function checkStatus(opts: {
    credential: object;
    documentLoader: (url: string) => Promise<{ document: unknown; documentUrl?: string }>;
    suite?: object;
    verifyBitstringStatusListCredential?: boolean;
    verifyMatchingIssuers?: boolean;
  }): Promise<{
    verified: boolean;
    status?: boolean;
    error?: Error;
    results?: Array<{ status: boolean; error?: Error }>;
  }>;
}

declare module 'jsonld-document-loader' {
  export class JsonLdDocumentLoader {
    addStatic(url: string, document: object): void;
    build(): (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
  }
}
