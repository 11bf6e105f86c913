// The committed contract artifacts are exactly what a fresh solc-js compile of the sources gives:
// a contract edited without `build-contracts.ts` being re-run fails here (and in CI).
import { describe, expect, it } from '@jest/globals';
import { CONTRACTS, checkArtifacts, compileContracts } from '../scripts/build-contracts.js';

describe('contract artifacts', () => {
  it('every committed artifact equals a fresh compile (scripts/build-contracts.ts --check)', () => {
    const files = compileContracts();
    expect([...files.keys()].sort()).toEqual(CONTRACTS.map((c) => `${c.name}.json`).sort());
    expect(checkArtifacts(files)).toEqual([]);
    for (const content of files.values()) {
      const artifact = JSON.parse(content) as { deployedBytecode: string; compiler: { version: string } };
      expect(artifact.compiler.version).toMatch(/^0\.8\.37\+commit/);
      // EIP-170: the runtime code must deploy on any EVM chain
      expect((artifact.deployedBytecode.length - 2) / 2).toBeLessThanOrEqual(24_576);
    }
  }, 120_000);
});
