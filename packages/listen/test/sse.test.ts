// The SSE reader against the WHATWG parsing rules the gateway's stream relies on: frames split
// across chunks, CRLF and lone CR line ends, comments (keep-alives), multi-line data.
import { describe, expect, it } from '@jest/globals';
import { readSse } from '../src/sse.js';

async function frames(chunks: string[]) {
  async function* source() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out = [];
  for await (const f of readSse(source())) out.push(f);
  return out;
}

describe('readSse', () => {
  it('reads frames split anywhere across chunks, skipping keep-alive comments', async () => {
    expect(
      await frames([
        'event: sess',
        'ion\ndata: {"id":1}\n',
        '\n: ping\n\nid: dlv_1\nevent: a.b\nda',
        'ta: x\n\n',
      ]),
    ).toEqual([
      { event: 'session', data: '{"id":1}', id: undefined },
      { event: 'a.b', data: 'x', id: 'dlv_1' },
    ]);
  });

  it('takes CRLF and lone CR line ends (a CR at a chunk end waits for its LF) and joins data lines', async () => {
    expect(await frames(['data: one\r', '\ndata: two\r\r', 'event: e\rdata:three\r\r'])).toEqual([
      { event: 'message', data: 'one\ntwo', id: undefined },
      { event: 'e', data: 'three', id: undefined },
    ]);
  });
});
