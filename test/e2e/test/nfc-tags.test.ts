// Tap to verify through the real processes (gateway → certificates, anvil for the certificate):
// a brand registers an NTAG 424 DNA tag over the API, its programming station decrypts the keys
// Hallmark exported to it, a tag emulated in software from AN12196's rules is "programmed" with
// them, and a phone's taps on the tag's URL get the pages a shopper sees: "Genuine tag, tap N",
// then for the same message again "already used — it may be a copy"; a revoked tag says so.
// The emulated tag is the certificates domain's `emulateSun` (pure: the tag's side of AN12196),
// the same rules the vectors in services/certificates/test/tag-crypto.test.ts pin down.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { constants, generateKeyPairSync, privateDecrypt, randomBytes } from 'node:crypto';
import { emulateSun, hexUpper } from '../../../services/certificates/src/tags/domain/sun.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ anvil: true, env: { HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200' } });
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

describe('tap to verify', () => {
  it('a registered tag’s fresh tap is genuine, the same message again is a suspected copy, a revoked tag says so', async () => {
    const ent = newId('enterprise');
    const token = await stack.token({ ent });
    const certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
    let certificateId: string;
    try {
      const principal = {
        enterprise_id: ent,
        livemode: true,
        actor_id: 'user_e2e',
        actor_type: 'user',
        scopes: [],
      };
      const batch = await certificates.api.mintBatch({
        principal,
        idempotency_key: 'nfc-tag-1',
        holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        items: [{ name: 'Tote No. 5', metadata_json: JSON.stringify({ serialNumber: 'T-0005' }) }],
      });
      const minted = await certificates.api.getMintBatch(
        { principal, batch_id: batch.batch_id, wait_ms: 30_000, status_only: false },
        { deadlineMs: 40_000 },
      );
      certificateId = minted.certificates[0]!.id;
    } finally {
      certificates.close();
    }

    // The brand's programming station and the tag's UID.
    const station = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const uid = Buffer.concat([Buffer.from([0x04]), randomBytes(6)]);
    const reg = await stack.call('POST', `/api/v1/certificates/${certificateId}/tags`, {
      auth: token,
      body: {
        uid: hexUpper(uid),
        programming_public_key: station.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      },
    });
    expect(reg.status).toBe(201);
    expect(reg.body.url_template).toMatch(/\/t\/tagkey_[0-9A-Za-z]+\?picc_data=\{PICC\}&cmac=\{MAC\}$/);
    const keys = privateDecrypt(
      { key: station.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(reg.body.encrypted_keys, 'base64'),
    );
    const [metaReadKey, fileReadKey] = [keys.subarray(16, 32), keys.subarray(32, 48)];

    // The tag's URL after a read: the template with the mirrored values.
    const tapUrl = async (counter: number) => {
      const m = await emulateSun({ metaReadKey, fileReadKey, uid, counter });
      const url = new URL(reg.body.url_template.replace('{PICC}', m.piccData).replace('{MAC}', m.cmac));
      return `${url.pathname}${url.search}`;
    };
    const first = await tapUrl(1);
    const genuine = await fetch(`${stack.gatewayUrl}${first}`);
    expect(genuine.status).toBe(200);
    const page = await genuine.text();
    expect(page).toContain('Genuine tag, tap 1');
    expect(page).toContain('Tote No. 5');

    const replay = await fetch(`${stack.gatewayUrl}${first}`);
    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain('This tag message was already used — it may be a copy');

    const second = await fetch(`${stack.gatewayUrl}${await tapUrl(2)}`);
    expect(await second.text()).toContain('Genuine tag, tap 2');

    const listed = await stack.call('GET', `/api/v1/certificates/${certificateId}/tags`, { auth: token });
    expect(listed.body.tags).toEqual([
      expect.objectContaining({ tap_count: 2, last_counter: 2, status: 'active' }),
    ]);

    const revoked = await stack.call(
      'DELETE',
      `/api/v1/certificates/${certificateId}/tags/${reg.body.tag.id}`,
      {
        auth: token,
      },
    );
    expect(revoked.body.status).toBe('revoked');
    const after = await fetch(`${stack.gatewayUrl}${await tapUrl(3)}`);
    expect(after.status).toBe(410);
    expect(await after.text()).toContain('This tag was revoked');
  }, 120_000);
});
