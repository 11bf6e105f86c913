// canonicalJson/metadataHashOf of this package equal the certificates service's (the hash minted
// as each certificate's Merkle leaf): fixed vectors computed with the service's implementation
// (services/certificates/src/domain/certificate.ts), and the service's functions themselves.
import { describe, expect, it } from '@jest/globals';
import * as service from '../../../services/certificates/src/domain/certificate.js';
import { canonicalJson, metadataHashOf } from '../src/index.js';

type Case = [name: string, imageUrl: string | null, metadata: Record<string, unknown>];

const CASES: Case[] = [
  [
    'Gold Watch',
    'https://img.brand.example/watch.png',
    { name: 'Gold Watch', description: 'A gold watch', category: 'Watches', edition: 1 },
  ],
  ['Silver Ring', null, { name: 'Silver Ring', artist: 'Ada' }],
  [
    'Zürich “Ü” ✓ 😀',
    null,
    {
      name: 'Zürich “Ü” ✓ 😀',
      Z: 1,
      a: [3, { y: null, x: 'b', é: true }],
      B: { c: 1.5, ab: -0, aa: 1e21 },
      'weird key!': '\u2028"\\',
      undef: undefined,
    },
  ],
];

/** Computed with the certificates service's canonicalJson/metadataHashOf. */
const VECTORS = [
  {
    canonical:
      '{"imageUrl":"https://img.brand.example/watch.png","metadata":{"category":"Watches","description":"A gold watch","edition":1,"name":"Gold Watch"},"name":"Gold Watch"}',
    hash: '0x096e48743d541164e250091a3df99f757860ed38186022d948931c5e33443fbf',
  },
  {
    canonical: '{"imageUrl":null,"metadata":{"artist":"Ada","name":"Silver Ring"},"name":"Silver Ring"}',
    hash: '0x5c82d210acca8f8602852b3a6c221c0753d164a960859411f2af37593f6aa83c',
  },
  {
    canonical:
      '{"imageUrl":null,"metadata":{"B":{"aa":1e+21,"ab":0,"c":1.5},"Z":1,"a":[3,{"x":"b","y":null,"é":true}],"name":"Zürich “Ü” ✓ 😀","weird key!":"\u2028\\"\\\\"},"name":"Zürich “Ü” ✓ 😀"}',
    hash: '0xbbe8ff480dcad21f55e637dc40d227005e3fdc4420e94074f985896d999b6ff5',
  },
];

describe('the metadata hash', () => {
  it.each(CASES.map((c, i) => [c[0], c, VECTORS[i]!] as const))(
    'of %s is the fixed vector the certificates service computes',
    (_name, [name, imageUrl, metadata], vector) => {
      expect(canonicalJson({ name, imageUrl, metadata })).toBe(vector.canonical);
      expect(metadataHashOf(name, imageUrl, metadata)).toBe(vector.hash);
    },
  );

  it("equals the certificates service's own functions on the same input", () => {
    for (const [name, imageUrl, metadata] of CASES) {
      expect(canonicalJson(metadata)).toBe(service.canonicalJson(metadata));
      expect(metadataHashOf(name, imageUrl, metadata)).toBe(service.metadataHashOf(name, imageUrl, metadata));
    }
  });
});
