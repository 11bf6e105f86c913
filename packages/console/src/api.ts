// The console's one way to the API: @hallmark/client with the signed-in session, the mode
// (`Hallmark-Mode`, the live/test switch) on every request, and the client's own errors. A
// 401 `invalid_token` ends the session (the page asks to sign in again).
import { Hallmark, HallmarkError } from '@hallmark/client';
import { currentSession, signOut, type Session } from './auth';

export type Mode = 'live' | 'test';

/** What every page is given by the shell. */
export interface PageProps {
  mode: Mode;
  session: Session;
  navigate: (path: string) => void;
}
const MODE = 'hallmark.console.mode';

export const storedMode = (): Mode => (localStorage.getItem(MODE) === 'test' ? 'test' : 'live');
export const storeMode = (m: Mode) => localStorage.setItem(MODE, m);

let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (f: () => void) => (onSignedOut = f);

/** Sends one request with the mode header; `send` is fetch, or the upload's XHR below. */
const withMode =
  (mode: Mode, send: (req: Request) => Promise<Response> = (r) => fetch(r)) =>
  async (req: Request) => {
    req.headers.set('hallmark-mode', mode);
    const res = await send(req);
    if (res.status === 401) {
      signOut();
      onSignedOut();
    }
    return res;
  };

export function client(mode: Mode, send?: (req: Request) => Promise<Response>): Hallmark {
  return new Hallmark({
    baseUrl: location.origin,
    token: currentSession()?.accessToken ?? '',
    maxRetries: 1,
    maxRetryDelayMs: 5_000,
    fetch: withMode(mode, send) as typeof fetch,
  });
}

/**
 * A fetch made of XMLHttpRequest, for uploads: browsers report upload progress only there.
 * The client builds the request (multipart body, credentials) exactly as for fetch.
 */
export function xhrSend(onProgress: (sent: number, total: number) => void) {
  return async (req: Request): Promise<Response> => {
    const body = await req.blob();
    return new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(req.method, req.url);
      req.headers.forEach((v, k) => xhr.setRequestHeader(k, v));
      xhr.responseType = 'blob';
      xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total);
      xhr.onerror = () => reject(new TypeError('The upload failed: no answer from the server.'));
      xhr.onload = () => {
        const headers = new Headers();
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const i = line.indexOf(':');
          if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
        }
        resolve(new Response(xhr.response as Blob, { status: xhr.status, headers }));
      };
      xhr.send(body);
    });
  };
}

/** What an error shows: the API's message, its code and the request id to quote to support. */
export function describeError(err: unknown): { message: string; code?: string; requestId?: string } {
  if (err instanceof HallmarkError)
    return { message: err.message, code: err.code ?? undefined, requestId: err.request_id ?? undefined };
  return { message: err instanceof Error ? err.message : String(err) };
}

/** Saves a response body as a file, with the server's name for it. */
export async function saveResponse(res: Response, fallbackName: string): Promise<void> {
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
