// EIP-712 permits of HallmarkCertificates: the domain (ERC-5267), an ERC-4494 `Permit` (approval)
// and a `TransferPermit` (move the token; a relayer submits it), signed offline by the holder.
import {
  getAddress,
  type BigNumberish,
  type Signer,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers';

/** EIP-712 domain of the permits; the same as the contract's `eip712Domain()` (ERC-5267). */
export function permitDomain(chainId: BigNumberish, verifyingContract: string): TypedDataDomain {
  return {
    name: 'HallmarkCertificates',
    version: '1',
    chainId,
    verifyingContract: getAddress(verifyingContract),
  };
}

const PERMIT_TYPES: Record<string, TypedDataField[]> = {
  Permit: [
    { name: 'spender', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};

const TRANSFER_PERMIT_TYPES: Record<string, TypedDataField[]> = {
  TransferPermit: [
    { name: 'to', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};

export interface PermitValue {
  spender: string;
  tokenId: BigNumberish;
  nonce: BigNumberish;
  /** Unix seconds; the permit is refused after it. */
  deadline: BigNumberish;
}

export interface TransferPermitValue {
  to: string;
  tokenId: BigNumberish;
  nonce: BigNumberish;
  deadline: BigNumberish;
}

/** The holder's EIP-712 signature of an ERC-4494 `Permit` (approval of `spender`), offline. */
export function signPermit(holder: Signer, domain: TypedDataDomain, value: PermitValue): Promise<string> {
  return holder.signTypedData(domain, PERMIT_TYPES, value);
}

/** The holder's EIP-712 signature of a `TransferPermit` (move the token to `to`), offline. */
export function signTransferPermit(
  holder: Signer,
  domain: TypedDataDomain,
  value: TransferPermitValue,
): Promise<string> {
  return holder.signTypedData(domain, TRANSFER_PERMIT_TYPES, value);
}
