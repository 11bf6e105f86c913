// The public cache hears a minted batch as one event: certificate.batch_minted falls under the
// invalidation filter and names every certificate of the batch (with its token), so each one's
// cached pending read is dropped; a batch event that names none clears the cache instead.
import { describe, expect, it } from '@jest/globals';
import { newEvent, subjectFor, type EventEnvelope } from '@hallmark/kit';
import { CERTIFICATE_EVENTS, certificatesOf } from '../src/cache/invalidation.js';

const filter = new RegExp(`^${CERTIFICATE_EVENTS.replace(/\./g, '\\.').replace('>', '.+')}$`);

describe('certificate.batch_minted and the public cache', () => {
  it('drops every certificate of the batch, each with its token', () => {
    expect(subjectFor('certificates', 'certificate.batch_minted')).toMatch(filter);
    const event = newEvent(
      'certificate.batch_minted',
      {
        object: {
          batchId: 'batch_1',
          quantity: 3,
          firstTokenId: 10,
          holderAddress: '0x1',
          transactionHash: '0xabc',
          blockNumber: 5,
          certificates: [
            { id: 'cert_a', tokenId: 10 },
            { id: 'cert_b', tokenId: 11 },
            { id: 'cert_c', tokenId: 12 },
          ],
        },
      },
      { enterpriseId: 'ent_1', livemode: true },
    ) as unknown as EventEnvelope;
    expect(certificatesOf(event)).toEqual([
      { id: 'cert_a', tokenId: 10 },
      { id: 'cert_b', tokenId: 11 },
      { id: 'cert_c', tokenId: 12 },
    ]);
  });

  it('a batch event without its certificates names none (the cache is cleared), a single event names one', () => {
    const bare = { type: 'certificate.batch_minted', data: { object: { batchId: 'b' } } } as EventEnvelope;
    expect(certificatesOf(bare)).toBeNull();
    const one = {
      type: 'certificate.minted',
      data: { object: { id: 'cert_1', tokenId: 7 } },
    } as EventEnvelope;
    expect(certificatesOf(one)).toEqual([{ id: 'cert_1', tokenId: 7 }]);
  });
});
