// Types of the untyped Digital Bazaar libraries, only as far as this package calls them.
// (The certificates service may declare the same modules: keep both to functions and
// interfaces, which merge, if they ever meet in one program.)
declare module '@digitalbazaar/vc' {
  export function issue(options: Record<string, unknown>): Promise<Record<string, unknown>>;
  export function verifyCredential(options: Record<string, unknown>): Promise<{
    verified: boolean;
    error?: Error & { errors?: Error[] };
    results?: { verified: boolean; error?: Error }[];
  }>;
}

declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(options: { signer?: unknown; cryptosuite: unknown; date?: string | Date });
  }
}

declare module '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite' {
  export const cryptosuite: unknown;
}

declare module '@digitalbazaar/ecdsa-multikey' {
  export interface EcdsaKeyPair {
    id: string;
    controller: string;
    signer(): unknown;
    export(options: {
      publicKey?: boolean;
      secretKey?: boolean;
      includeContext?: boolean;
    }): Promise<Record<string, unknown>>;
  }
  export function generate(options: {
    curve: string;
    id?: string;
    controller?: string;
  }): Promise<EcdsaKeyPair>;
  export function from(key: Record<string, unknown>): Promise<EcdsaKeyPair>;
}

declare module '@digitalbazaar/vc-bitstring-status-list' {
  export interface StatusList {
    setStatus(index: number, status: boolean): void;
    getStatus(index: number): boolean;
  }
  export function createList(options: { length: number }): Promise<StatusList>;
  export function createCredential(options: {
    id: string;
    list: StatusList;
    statusPurpose: string;
  }): Promise<Record<string, unknown>>;
  export function checkStatus(options: Record<string, unknown>): Promise<{
    verified: boolean;
    error?: Error;
    results?: { verified: boolean; status?: boolean; error?: Error }[];
  }>;
}

declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, unknown>;
}
declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, unknown>;
}
declare module '@digitalbazaar/multikey-context' {
  export const CONTEXT_URL: string;
  export const contexts: Map<string, unknown>;
}
