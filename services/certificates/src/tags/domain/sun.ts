// NXP NTAG 424 DNA "Secure Unique NFC" (SUN) messages, AES mode, as NXP application note
// AN12196 ("NTAG 424 DNA and NTAG 424 DNA TagTamper features and hints") describes them: on
// every read the tag increments its SDMReadCtr and mirrors into its NDEF URL
//   PICCData  = AES-128-CBC(SDMMetaReadKey, IV 0) of PICCDataTag ‖ UID ‖ SDMReadCtr ‖ random pad
//   SDMMAC    = MACt(KSesSDMFileReadMAC; the file bytes from SDMMACInputOffset to SDMMACOffset)
// where KSesSDMFileReadMAC = CMAC(SDMFileReadKey; SV2) and SV2 = 3CC3 0001 0080 ‖ UID ‖ SDMReadCtr
// (zero-padded to a block), and MACt keeps the even-numbered bytes (1, 3, …, 15) of the
// 16-byte CMAC. Optionally the tag also mirrors SDMENCFileData, encrypted under the session
// key KSesSDMFileReadENC (SV1 = C33C 0001 0080 ‖ UID ‖ SDMReadCtr) with IV = E(KSesENC,
// SDMReadCtr ‖ 0…0). Pure: node:crypto's AES and the `aes-cmac` package (RFC 4493), no I/O.
// `emulateSun` runs the same rules from the tag's side, for tests and the docs' examples.
import { createCipheriv, createDecipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import { AesCmac } from 'aes-cmac';

export const KEY_BYTES = 16;
export const UID_BYTES = 7;
/** PICCDataTag of a 7-byte UID mirrored with the read counter: bits 7 (UID), 6 (counter), length 7. */
export const PICC_DATA_TAG = 0xc7;

/** AES-CMAC (RFC 4493) of `message` under a 128-bit `key`. */
export async function aesCmac(key: Uint8Array, message: Uint8Array): Promise<Buffer> {
  return Buffer.from(await new AesCmac(key).calculate(message));
}

/** AN12196's MACt: the even-numbered bytes (counting from 0: indexes 1, 3, …, 15) of a CMAC. */
export function truncateMac(mac: Uint8Array): Buffer {
  const out = Buffer.alloc(8);
  for (let i = 0; i < 8; i++) out[i] = mac[2 * i + 1]!;
  return out;
}

function aesCbc(mode: 'encrypt' | 'decrypt', key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  const c =
    mode === 'encrypt' ? createCipheriv('aes-128-cbc', key, iv) : createDecipheriv('aes-128-cbc', key, iv);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(data), c.final()]);
}

/** The 3-byte SDMReadCtr as the tag sends it: least significant byte first. */
export function counterBytes(counter: number): Buffer {
  const b = Buffer.alloc(3);
  b.writeUIntLE(counter, 0, 3);
  return b;
}

/** SV1/SV2 of AN12196: the label, 0001 0080, UID and counter, zero-padded to 16 bytes. */
function sessionVector(label: 'sv1' | 'sv2', uid: Uint8Array, counter: number): Buffer {
  const head = Buffer.from(label === 'sv1' ? 'c33c00010080' : '3cc300010080', 'hex');
  const sv = Buffer.alloc(16);
  Buffer.concat([head, uid, counterBytes(counter)]).copy(sv);
  return sv;
}

/** KSesSDMFileReadMAC = CMAC(SDMFileReadKey; SV2). */
export const sessionMacKey = (fileReadKey: Uint8Array, uid: Uint8Array, counter: number) =>
  aesCmac(fileReadKey, sessionVector('sv2', uid, counter));

/** KSesSDMFileReadENC = CMAC(SDMFileReadKey; SV1). */
export const sessionEncKey = (fileReadKey: Uint8Array, uid: Uint8Array, counter: number) =>
  aesCmac(fileReadKey, sessionVector('sv1', uid, counter));

export interface PiccData {
  tag: number;
  uid: Buffer;
  counter: number;
}

/**
 * Decrypts the 16-byte PICCData with the SDM meta read key. Null when the plaintext is not a
 * 7-byte UID with a counter (PICCDataTag 0xC7): the wrong key or not a tag's message.
 */
export function decryptPiccData(metaReadKey: Uint8Array, encrypted: Uint8Array): PiccData | null {
  if (encrypted.length !== 16) return null;
  const plain = aesCbc('decrypt', metaReadKey, Buffer.alloc(16), encrypted);
  if (plain[0] !== PICC_DATA_TAG) return null;
  return {
    tag: plain[0]!,
    uid: plain.subarray(1, 1 + UID_BYTES),
    counter: plain.readUIntLE(1 + UID_BYTES, 3),
  };
}

/** SDMMAC: MACt over `macInput` (the ASCII bytes between SDMMACInputOffset and SDMMACOffset). */
export async function sunMac(
  fileReadKey: Uint8Array,
  uid: Uint8Array,
  counter: number,
  macInput: Uint8Array = Buffer.alloc(0),
): Promise<Buffer> {
  return truncateMac(await aesCmac(await sessionMacKey(fileReadKey, uid, counter), macInput));
}

/** Constant-time check of a received 8-byte SDMMAC. */
export async function macMatches(
  fileReadKey: Uint8Array,
  uid: Uint8Array,
  counter: number,
  received: Uint8Array,
  macInput?: Uint8Array,
): Promise<boolean> {
  const expected = await sunMac(fileReadKey, uid, counter, macInput);
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/** The IV of SDMENCFileData: E(KSesSDMFileReadENC; SDMReadCtr ‖ 0…0). */
async function fileDataIv(fileReadKey: Uint8Array, uid: Uint8Array, counter: number) {
  const key = await sessionEncKey(fileReadKey, uid, counter);
  const block = Buffer.alloc(16);
  counterBytes(counter).copy(block);
  return { key, iv: aesCbc('encrypt', key, Buffer.alloc(16), block) };
}

/** Decrypts SDMENCFileData (a multiple of 16 bytes). */
export async function decryptFileData(
  fileReadKey: Uint8Array,
  uid: Uint8Array,
  counter: number,
  encrypted: Uint8Array,
): Promise<Buffer> {
  const { key, iv } = await fileDataIv(fileReadKey, uid, counter);
  return aesCbc('decrypt', key, iv, encrypted);
}

/** Upper-case hex, as the tag writes mirrored bytes into the URL. */
export const hexUpper = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

/** What a tag mirrors into its URL on one read. */
export interface SunMessage {
  piccData: string;
  cmac: string;
  /** SDMENCFileData, when the tag mirrors file data. */
  enc?: string;
}

/**
 * A tag's side of one read (for tests and examples): encrypts PICCData, encrypts the file
 * data when given (16-byte multiple), and MACs the mirrored ASCII from the input offset to
 * the MAC — with `&cmac=` between ENC and the MAC when file data is mirrored, nothing else.
 */
export async function emulateSun(t: {
  metaReadKey: Uint8Array;
  fileReadKey: Uint8Array;
  uid: Uint8Array;
  counter: number;
  fileData?: Uint8Array;
}): Promise<SunMessage> {
  const plain = Buffer.concat([Buffer.from([PICC_DATA_TAG]), t.uid, counterBytes(t.counter), randomBytes(5)]);
  const piccData = hexUpper(aesCbc('encrypt', t.metaReadKey, Buffer.alloc(16), plain));
  if (!t.fileData) return { piccData, cmac: hexUpper(await sunMac(t.fileReadKey, t.uid, t.counter)) };
  const { key, iv } = await fileDataIv(t.fileReadKey, t.uid, t.counter);
  const enc = hexUpper(aesCbc('encrypt', key, iv, t.fileData));
  const cmac = hexUpper(await sunMac(t.fileReadKey, t.uid, t.counter, macInputWithFileData(enc)));
  return { piccData, cmac, enc };
}

/** The MAC input of a URL `…enc=<ENC>&cmac=<MAC>` whose SDMMACInputOffset is ENC's start. */
export const macInputWithFileData = (encHex: string) => Buffer.from(`${encHex}&cmac=`, 'ascii');
