// The HallmarkCertificates ABI from its generated artifact (contracts/artifacts/, built by
// scripts/build-contracts.ts) and the event topics that readers of its logs filter on.
import { readFileSync } from 'node:fs';
import { Interface } from 'ethers';

export type ArtifactName = 'HallmarkCertificates' | 'PlainERC721';

export interface ContractArtifact {
  contractName: string;
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
  compiler: { version: string };
}

const artifactCache = new Map<ArtifactName, ContractArtifact>();

/** The committed build output of one contract. */
export function loadArtifact(name: ArtifactName): ContractArtifact {
  let artifact = artifactCache.get(name);
  if (!artifact) {
    const url = new URL(`../../contracts/artifacts/${name}.json`, import.meta.url);
    artifact = JSON.parse(readFileSync(url, 'utf8')) as ContractArtifact;
    artifactCache.set(name, artifact);
  }
  return artifact;
}

export const certificatesInterface = new Interface(
  loadArtifact('HallmarkCertificates').abi as ConstructorParameters<typeof Interface>[0],
);

export const BATCH_MINTED_TOPIC = certificatesInterface.getEvent('BatchMinted')!.topicHash;
export const TRANSFER_TOPIC = certificatesInterface.getEvent('Transfer')!.topicHash;
/** ERC-2309: one log for a range of consecutive ids (a batch minted with one event). */
export const CONSECUTIVE_TRANSFER_TOPIC = certificatesInterface.getEvent('ConsecutiveTransfer')!.topicHash;
/** ERC-4906: one token's metadata changed; and a range's (`BatchMetadataUpdate(from, to)`). */
export const METADATA_UPDATE_TOPIC = certificatesInterface.getEvent('MetadataUpdate')!.topicHash;
export const BATCH_METADATA_UPDATE_TOPIC = certificatesInterface.getEvent('BatchMetadataUpdate')!.topicHash;
