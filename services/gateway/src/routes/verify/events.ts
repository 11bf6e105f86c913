// Which views of the public verification page become a `document.verified` event (and so a
// webhook delivery to the certificate's enterprise). Anyone can load the page, so every view
// cannot be an event: the first view per certificate and viewer (client address, IPv6 by /64)
// in VIEWER_WINDOW is recorded, and at most CERTIFICATE_WINDOW.points views per certificate
// in its window whoever the viewers are. Counted in the rate-limit store (Redis when
// configured, so every replica agrees). A store failure records nothing: a missed event is
// better than a flood.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Window } from '../../auth/limits.js';
import { clientBucket } from '../../auth/throttle.js';

const VIEWER_WINDOW: Window = { name: 'verified_viewer', points: 1, durationSec: 3600 };
const CERTIFICATE_WINDOW: Window = { name: 'verified_certificate', points: 60, durationSec: 3600 };

async function takes(app: FastifyInstance, w: Window, key: string): Promise<boolean> {
  try {
    await app.limiterFor(w).consume(key);
    return true;
  } catch (err) {
    if (err instanceof RateLimiterRes) return false;
    throw err;
  }
}

/** True when this view of `certificateId` should record a document.verified event. */
export async function recordsEvent(
  app: FastifyInstance,
  request: FastifyRequest,
  certificateId: string,
): Promise<boolean> {
  try {
    return (
      (await takes(app, VIEWER_WINDOW, `${certificateId}|${clientBucket(request.ip)}`)) &&
      (await takes(app, CERTIFICATE_WINDOW, certificateId))
    );
  } catch (err) {
    request.log.warn({ err }, 'verification events: rate-limit store failed; no event recorded');
    return false;
  }
}
