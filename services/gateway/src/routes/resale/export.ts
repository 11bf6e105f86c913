// Export to the owner's own wallet and import back (docs/resale.md): the owner fetches the
// EIP-712 message, signs it with the outside wallet, and the custodian or relayer moves the token.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, str, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { txHash } from '../gifts/common.js';
import { OWNER, TAGS } from './common.js';

const address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', maxLength: 42 });
const certificateId = Type.String({ minLength: 1, maxLength: 64, description: 'cert_…' });
/** A transfer of export or import as it stands when the answer's bounded wait ended. */
const TransferAnswer = Type.Object(
  {
    success: Type.Literal(true),
    status: Type.Unsafe<string>({
      type: 'string',
      enum: ['pending', 'signed', 'sent', 'confirmed', 'failed'],
    }),
    transactionHash: txHash,
    toAddress: address,
    replayed: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const prepareExport = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/export/prepare',
  operationId: 'prepareExport',
  tags: TAGS,
  summary: 'The message to sign with the wallet a certificate is exported to (the owner’s session)',
  description:
    'EIP-712 typed data (`eth_signTypedData_v4`): `ExportCertificate{certificateId, tokenId, to, nonce, ' +
    'deadline}` under the domain `Hallmark Export` of this chain and contract; `nonce` is the token’s permit ' +
    'nonce (a signature is spent once the token moves), `deadline` an hour away.',
  access: OWNER,
  body: closed({ certificateId, toAddress: address }),
  responses: {
    200: {
      description: 'The typed data to sign',
      contentType: 'application/json',
      schema: Type.Object({
        success: Type.Literal(true),
        typedData: Type.Object({}, { additionalProperties: true }),
      }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.ownership.prepareExport({
      principal: principalOf(request),
      certificate_id: request.body.certificateId,
      to_address: request.body.toAddress,
    });
    return { success: true as const, typedData: JSON.parse(res.typed_data_json) as Record<string, unknown> };
  },
});

export const exportCertificate = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/export',
  operationId: 'exportCertificate',
  tags: TAGS,
  summary: 'Export a certificate to the owner’s own wallet, proven by its signature',
  description:
    'The signature must be `toAddress`’s EIP-712 signature of the prepared message (same deadline); a wrong ' +
    'signer, an expired or altered message: 422 `validation_failed` (param `signature`). The custodian ' +
    'moves the token by the holder-signed permit path; the answer waits for the confirmation a bounded time ' +
    '(`sent` if still on its way). A repeat answers the same transfer (`replayed`).',
  access: OWNER,
  body: closed({
    certificateId,
    toAddress: address,
    deadline: Type.Integer({ minimum: 1, maximum: 2 ** 40, description: 'Unix seconds, as prepared' }),
    signature: str(200, '0x… 65-byte signature'),
  }),
  responses: { 200: { description: 'The transfer to the owner’s wallet', schema: TransferAnswer } },
  handler: async (request, { clients }) => {
    const b = request.body;
    const res = await clients.ownership.exportCertificate(
      {
        principal: principalOf(request),
        certificate_id: b.certificateId,
        to_address: b.toAddress,
        deadline: b.deadline,
        signature: b.signature,
      },
      { deadlineMs: 40_000 },
    );
    return {
      success: true as const,
      status: res.status,
      transactionHash: res.transaction_hash ?? null,
      toAddress: res.to_address,
      replayed: res.replayed,
    };
  },
});

export const prepareImport = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/import/prepare',
  operationId: 'prepareImport',
  tags: TAGS,
  summary: 'The permit an outside wallet signs to bring an exported certificate back (the owner’s session)',
  description:
    'The contract’s own EIP-712 `TransferPermit{to, tokenId, nonce, deadline}` (domain `HallmarkCertificates`), ' +
    '`to` being the signed-in owner’s custodial wallet (created if needed), `deadline` an hour away. A ' +
    'certificate already in custody: 422.',
  access: OWNER,
  body: closed({ certificateId }),
  responses: {
    200: {
      description: 'The typed data to sign with the wallet holding the certificate',
      contentType: 'application/json',
      schema: Type.Object({
        success: Type.Literal(true),
        typedData: Type.Object({}, { additionalProperties: true }),
      }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.ownership.prepareImport({
      principal: principalOf(request),
      certificate_id: request.body.certificateId,
    });
    return { success: true as const, typedData: JSON.parse(res.typed_data_json) as Record<string, unknown> };
  },
});

export const importCertificate = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/import',
  operationId: 'importCertificate',
  tags: TAGS,
  summary: 'Bring an exported certificate back into the owner’s custodial wallet',
  description:
    'The signature must be the recorded holder’s signature of the prepared permit (same deadline), else 422 ' +
    '`validation_failed` (param `signature`); the relayer submits it with `transferWithPermit` and pays the ' +
    'gas. A repeat answers the same transfer (`replayed`).',
  access: OWNER,
  body: closed({
    certificateId,
    deadline: Type.Integer({ minimum: 1, maximum: 2 ** 40, description: 'Unix seconds, as prepared' }),
    signature: str(200, '0x… 65-byte signature'),
  }),
  responses: { 200: { description: 'The transfer back into custody', schema: TransferAnswer } },
  handler: async (request, { clients }) => {
    const b = request.body;
    const res = await clients.ownership.importCertificate(
      {
        principal: principalOf(request),
        certificate_id: b.certificateId,
        deadline: b.deadline,
        signature: b.signature,
      },
      { deadlineMs: 40_000 },
    );
    return {
      success: true as const,
      status: res.status,
      transactionHash: res.transaction_hash ?? null,
      toAddress: res.to_address,
      replayed: res.replayed,
    };
  },
});
