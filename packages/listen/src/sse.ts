// A Server-Sent Events reader (WHATWG HTML › Server-sent events › Parsing an event stream):
// lines split on CR, LF or CRLF; `event`, `data` (joined with LF), `id`; comment lines (`:`)
// ignored; a blank line dispatches. Only what the listen stream needs: no `retry`.
export interface SseFrame {
  event: string;
  data: string;
  id?: string;
}

/** The frames of a byte stream, as they complete. */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let ended = false;
  const chunks = body[Symbol.asyncIterator]();
  while (!ended) {
    const next = await chunks.next();
    if (next.done) ended = true;
    else buffer += decoder.decode(next.value, { stream: true });
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      if (!match) break;
      // A lone CR at the end of the buffer may be the first half of a CRLF (unless it is the end).
      if (!ended && match[0] === '\r' && match.index === buffer.length - 1) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
        event = '';
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
}
