// The few chain reads the verifier makes, as plain JSON-RPC over fetch (works in Node and in a
// browser page opened from file://), with a minimal ABI of HallmarkCertificates.
import { Interface } from 'ethers';

export const CERTIFICATES_ABI = [
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function verifyCertificate(uint256 tokenId, bytes32 batchKey, bytes32 metadataHash, bytes32[] proof) view returns (bool)',
  'event BatchMinted(bytes32 indexed batchKey, uint256 indexed firstTokenId, uint256 quantity, bytes32 merkleRoot, address indexed to)',
  'error ERC721NonexistentToken(uint256 tokenId)',
];
export const certificatesAbi = new Interface(CERTIFICATES_ABI);

/** The node answered with a JSON-RPC error (e.g. a reverted call: `data` holds the revert data). */
export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data: string | undefined,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** The node could not be reached or did not speak JSON-RPC. */
export class RpcUnreachableError extends Error {
  override name = 'RpcUnreachableError';
}

export interface Receipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  to: string | null;
  logs: { address: string; topics: string[]; data: string }[];
}

export class Rpc {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly doFetch: typeof fetch = globalThis.fetch,
    private readonly timeoutMs = 15_000,
  ) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      const res = await this.doFetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as typeof body;
    } catch (err) {
      throw new RpcUnreachableError(
        `the RPC at ${this.url} did not answer ${method}: ${(err as Error).message}`,
      );
    }
    if (body.error) {
      const data = typeof body.error.data === 'string' ? body.error.data : undefined;
      throw new RpcError(body.error.message, body.error.code, data);
    }
    return body.result as T;
  }

  async chainId(): Promise<bigint> {
    return BigInt(await this.call<string>('eth_chainId', []));
  }

  receipt(hash: string): Promise<Receipt | null> {
    return this.call<Receipt | null>('eth_getTransactionReceipt', [hash]);
  }

  /** A view call of the certificates contract: the decoded results, or the revert's error name. */
  async view(
    contract: string,
    fn: 'ownerOf' | 'verifyCertificate',
    args: unknown[],
  ): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
    const data = certificatesAbi.encodeFunctionData(fn, args);
    try {
      const out = await this.call<string>('eth_call', [{ to: contract, data }, 'latest']);
      if (out === '0x') return { ok: false, error: 'no contract at this address' };
      return { ok: true, value: certificatesAbi.decodeFunctionResult(fn, out)[0] };
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      const parsed = err.data && err.data !== '0x' ? certificatesAbi.parseError(err.data) : null;
      return { ok: false, error: parsed?.name ?? err.message };
    }
  }
}
