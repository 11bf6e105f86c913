// Where a dev stack's stand-ins list what they were sent (`GET /messages` of the SMTP sink and
// of the SMS server), kept in the data dir so `hallmark inbox` finds them whatever the ports.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface InboxUrls {
  /** The SMTP sink's `GET /messages`; null when SMTP_URL was set (no sink). */
  email: string | null;
  /** The SMS server's `GET /messages`; null when HALLMARK_SMS_URL was set. */
  sms: string | null;
}

const FILE = 'inbox.json';

export function writeInbox(dataDir: string, urls: InboxUrls): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, FILE), JSON.stringify(urls));
}

/** The stack's inbox URLs, or undefined when no stack wrote them in `dataDir`. */
export function readInbox(dataDir: string): InboxUrls | undefined {
  const file = path.join(dataDir, FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as InboxUrls) : undefined;
}
