// The NTAG 424 DNA cryptography against published vectors, computed by nothing of ours:
//  - RFC 4493 §4 (AES-CMAC examples 1–4), for the CMAC library.
//  - NXP AN12196 Rev. 2.0 (NTAG 424 DNA features and hints): §3.3 / Table 4, the SUN message
//    https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086 (all keys
//    zero): PICCData plaintext, SV2, KSesSDMFileReadMAC, the full CMAC and MACt; Table 5, the
//    message with SDMENCFileData (…?picc_data=FD91EC26…&enc=CEE9A53E…&cmac=ECC1E7F6C6C73BF6),
//    whose MAC input is the ASCII "CEE9A53E3E463EF1F459635736738962&cmac="; Table 1, session keys
//    from a non-zero file key. The same numbers are the tests of nfc-developer/sdm-backend
//    (tests/test_libsdm.py: test_sun1, test_sun2), which read them from the note.
//  - NXP AN10922 Rev. 1.2 §2.2.1 (AES-128 diversification example): master
//    00112233445566778899AABBCCDDEEFF, M = UID 04782E21801D80 ‖ AID 3042F5 ‖ system identifier
//    "NXP Abu", subkeys K1/K2 and the diversified key A8DD63A3B89D54B37CA802473FDA9175.
import { describe, expect, it } from '@jest/globals';
import { AesCmac } from 'aes-cmac';
import {
  aesCmac,
  decryptFileData,
  decryptPiccData,
  emulateSun,
  macInputWithFileData,
  macMatches,
  sessionEncKey,
  sessionMacKey,
  sunMac,
  truncateMac,
} from '../src/tags/domain/sun.js';
import {
  diversificationInput,
  diversifyAes128,
  fileReadKey,
  metaReadKey,
  tagKeys,
} from '../src/tags/domain/keys.js';

const hex = (s: string) => Buffer.from(s, 'hex');
const ZERO = Buffer.alloc(16);

describe('AES-CMAC (RFC 4493 §4)', () => {
  const key = hex('2b7e151628aed2a6abf7158809cf4f3c');
  const msg = hex(
    '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710',
  );
  it.each([
    [0, 'bb1d6929e95937287fa37d129b756746'],
    [16, '070a16b46b4d4144f79bdd9dd04a287c'],
    [40, 'dfa66747de9ae63030ca32611497c827'],
    [64, '51f0bebf7e3b9d92fc49741779363cfe'],
  ])('the CMAC of the first %i bytes is the RFC’s', async (len, mac) => {
    expect((await aesCmac(key, msg.subarray(0, len))).toString('hex')).toBe(mac);
  });
});

describe('SUN messages (AN12196)', () => {
  it('decrypts Table 4’s PICCData to tag C7, UID 04DE5F1EACC040 and counter 61', () => {
    const picc = decryptPiccData(ZERO, hex('EF963FF7828658A599F3041510671E88'));
    expect(picc).not.toBeNull();
    expect(picc!.tag).toBe(0xc7);
    expect(picc!.uid.toString('hex').toUpperCase()).toBe('04DE5F1EACC040');
    expect(picc!.counter).toBe(61); // 3D0000, least significant byte first
  });

  it('derives Table 4’s session MAC key from SV2 3CC30001008004DE5F1EACC0403D0000', async () => {
    const key = await sessionMacKey(ZERO, hex('04DE5F1EACC040'), 61);
    expect(key.toString('hex').toUpperCase()).toBe('3FB5F6E3A807A03D5E3570ACE393776F');
    // SV2 itself, to show the vector is built as the note prints it.
    expect((await aesCmac(ZERO, hex('3CC30001008004DE5F1EACC0403D0000'))).equals(key)).toBe(true);
  });

  it('computes Table 4’s SUN CMAC over an empty MAC input, and its MACt 94EED9EE65337086', async () => {
    const full = await aesCmac(hex('3FB5F6E3A807A03D5E3570ACE393776F'), Buffer.alloc(0));
    expect(full.toString('hex').toUpperCase()).toBe('E194C7EE12D9F7EE8A65C8331B704386');
    expect(truncateMac(full).toString('hex').toUpperCase()).toBe('94EED9EE65337086');
    expect((await sunMac(ZERO, hex('04DE5F1EACC040'), 61)).toString('hex').toUpperCase()).toBe(
      '94EED9EE65337086',
    );
    expect(await macMatches(ZERO, hex('04DE5F1EACC040'), 61, hex('94EED9EE65337086'))).toBe(true);
    expect(await macMatches(ZERO, hex('04DE5F1EACC040'), 62, hex('94EED9EE65337086'))).toBe(false);
  });

  it('verifies Table 5’s message with SDMENCFileData and decrypts the file data', async () => {
    const picc = decryptPiccData(ZERO, hex('FD91EC264309878BE6345CBE53BADF40'))!;
    expect(picc.uid.toString('hex').toUpperCase()).toBe('04958CAA5C5E80');
    expect(picc.counter).toBe(8);
    const macKey = await sessionMacKey(ZERO, picc.uid, picc.counter);
    expect(macKey.toString('hex').toUpperCase()).toBe('3ED0920E5E6A0320D823D5987FEAFBB1');
    const input = macInputWithFileData('CEE9A53E3E463EF1F459635736738962');
    expect(await macMatches(ZERO, picc.uid, picc.counter, hex('ECC1E7F6C6C73BF6'), input)).toBe(true);
    const data = await decryptFileData(ZERO, picc.uid, picc.counter, hex('CEE9A53E3E463EF1F459635736738962'));
    // AN12196 Table 5: the tag's plaintext file data is sixteen ASCII 'x' (0x78) bytes.
    expect(data.toString('ascii')).toBe('xxxxxxxxxxxxxxxx');
  });

  it('derives Table 1’s session ENC and MAC keys from a non-zero file key', async () => {
    const key = hex('5ACE7E50AB65D5D51FD5BF5A16B8205B');
    const uid = hex('04C767F2066180');
    expect((await sessionEncKey(key, uid, 1)).toString('hex').toUpperCase()).toBe(
      '66DA61797E23DECA5D8ECA13BBADF7A9',
    );
    expect((await sessionMacKey(key, uid, 1)).toString('hex').toUpperCase()).toBe(
      '3A3E8110E05311F7A3FCF0D969BF2B48',
    );
  });

  it('refuses PICCData that does not decrypt to a 7-byte UID with a counter (wrong key)', () => {
    expect(
      decryptPiccData(hex('00112233445566778899AABBCCDDEEFF'), hex('EF963FF7828658A599F3041510671E88')),
    ).toBe(null);
  });

  it('an emulated tag’s message round-trips, with and without file data', async () => {
    const meta = hex('42AFF114F2CB3B6141BE6DC95DFC5416');
    const file = hex('B62A9BAF092439BD43C62AEE96B970C5');
    const uid = hex('041D3C8A2D6B80');
    const m = await emulateSun({ metaReadKey: meta, fileReadKey: file, uid, counter: 291 });
    const picc = decryptPiccData(meta, hex(m.piccData))!;
    expect(picc.counter).toBe(291);
    expect(await macMatches(file, picc.uid, picc.counter, hex(m.cmac))).toBe(true);
    const withData = await emulateSun({
      metaReadKey: meta,
      fileReadKey: file,
      uid,
      counter: 292,
      fileData: Buffer.from('NTXXqno_oBFpwy-V'),
    });
    expect(await macMatches(file, uid, 292, hex(withData.cmac), macInputWithFileData(withData.enc!))).toBe(
      true,
    );
    expect((await decryptFileData(file, uid, 292, hex(withData.enc!))).toString()).toBe('NTXXqno_oBFpwy-V');
  });
});

describe('key diversification (AN10922 §2.2.1, AES-128)', () => {
  const master = hex('00112233445566778899AABBCCDDEEFF');

  it('has the note’s CMAC subkeys K1 and K2', async () => {
    const { key1, key2 } = await new AesCmac(master).getSubKeys();
    expect(Buffer.from(key1).toString('hex').toUpperCase()).toBe('FBC9F75C9413C041DFEE452D3F0706D1');
    expect(Buffer.from(key2).toString('hex').toUpperCase()).toBe('F793EEB928278083BFDC8A5A7E0E0D25');
  });

  it('diversifies the note’s example input to A8DD63A3B89D54B37CA802473FDA9175', async () => {
    const m = Buffer.concat([hex('04782E21801D80'), hex('3042F5'), Buffer.from('NXP Abu', 'ascii')]);
    expect(m.toString('hex').toUpperCase()).toBe('04782E21801D803042F54E585020416275');
    expect((await diversifyAes128(master, m)).toString('hex').toUpperCase()).toBe(
      'A8DD63A3B89D54B37CA802473FDA9175',
    );
  });

  it('pads a short input to two blocks as AN10922 does (not as RFC 4493 would)', async () => {
    const m = hex('0102');
    // By hand: 01 ‖ M ‖ 80 00…, 32 bytes, last block XOR K2, CBC under the master key.
    const d = Buffer.concat([hex('010102'), hex('80'), Buffer.alloc(28)]);
    const { key2 } = await new AesCmac(master).getSubKeys();
    for (let i = 0; i < 16; i++) d[16 + i]! ^= key2[i]!;
    const { createCipheriv } = await import('node:crypto');
    const c = createCipheriv('aes-128-cbc', master, Buffer.alloc(16)).setAutoPadding(false);
    const expected = Buffer.concat([c.update(d), c.final()]).subarray(16);
    expect((await diversifyAes128(master, m)).equals(expected)).toBe(true);
    expect((await diversifyAes128(master, m)).equals(await aesCmac(master, hex('010102')))).toBe(false);
  });

  it('gives each tag its own keys and every tag of a master the same meta read key', async () => {
    const a = hex('04A1B2C3D4E5F6');
    const b = hex('04A1B2C3D4E5F7');
    const [ka, kb] = [await tagKeys(master, a), await tagKeys(master, b)];
    expect(ka[1]!.equals(kb[1]!)).toBe(true);
    expect(ka[1]!.equals(await metaReadKey(master))).toBe(true);
    expect(ka[2]!.equals(await fileReadKey(master, a))).toBe(true);
    for (const i of [0, 2, 3, 4]) expect(ka[i]!.equals(kb[i]!)).toBe(false);
    expect(diversificationInput(a, 2).toString('hex').toUpperCase()).toBe(
      '04A1B2C3D4E5F602' + '48616C6C6D61726B',
    );
  });
});
