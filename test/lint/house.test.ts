// The house's shape rules that a linter rule does not see (architecture.md › One service,
// inside), checked over the tree as it stands:
//  - all SQL of a service lives in its store files (`store.ts` or `*-store.ts`);
//  - no hand-written source file under services/*/src or packages/*/src is longer than 400
//    lines;
//  - every service README's table of rooms names only paths that exist, and covers every
//    source file.
// Files of services/gateway and services/certificates that still break a rule are listed in
// PENDING below. The list is a ratchet: a listed file that no longer breaks its rule (or is
// gone) fails the test too, so the list only ever shrinks.
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const MAX_LINES = 400;

/**
 * Known violations, to be moved into the house shape by the gateway and certificates work
 * (issue "The house"). Paths are relative to the repository root. Remove a line when its file
 * is fixed: the test says which.
 */
const PENDING = {
  sqlOutsideStore: [],
  tooLong: [],
} as const;

/**
 * Services whose README has no table of rooms yet (being reshaped in parallel); not a
 * ratchet, so that a branch adding the table does not have to touch this file.
 */
const ROOMS_PENDING = new Set<string>();

/**
 * SQL as the house writes it: upper-case keywords in a string. Comment lines are skipped, so
 * prose that names a statement ("the conditional UPDATE …") does not count.
 */
const SQL =
  /\b(?:SELECT\s+[\s\S]{1,400}?\bFROM\b|SELECT\s+pg_\w+\s*\(|INSERT\s+INTO\b|UPDATE\s+[a-z_]+\s+(?:[a-z_]+\s+)?SET\b|DELETE\s+FROM\b|FOR\s+(?:NO\s+KEY\s+)?UPDATE\b|FOR\s+SHARE\b)/;

const codeOf = (text: string) =>
  text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const rel = (p: string) => path.relative(root, p).split(path.sep).join('/');
const dirs = (parent: string) =>
  fs
    .readdirSync(path.join(root, parent), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

const SERVICES = dirs('services');
const serviceFiles = SERVICES.flatMap((s) => walk(path.join(root, 'services', s, 'src'))).map(rel);
const packageFiles = dirs('packages')
  .flatMap((p) => walk(path.join(root, 'packages', p, 'src')))
  .map(rel);

const isStoreFile = (file: string) => /(?:^|\/)(?:store|[\w-]+-store)\.ts$/.test(file);
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const lineCount = (file: string) => read(file).replace(/\n$/, '').split('\n').length;

/** The rule's violations, the pending list held against them (both ways). */
function ratchet(violations: string[], pending: readonly string[]) {
  const listed = new Set(pending);
  return {
    unlisted: violations.filter((f) => !listed.has(f)),
    fixed: pending.filter((f) => !violations.includes(f)),
  };
}

describe('the house', () => {
  it('keeps every SQL statement of a service in its store files', () => {
    const violations = serviceFiles.filter((f) => !isStoreFile(f) && SQL.test(codeOf(read(f))));
    const { unlisted, fixed } = ratchet(violations, PENDING.sqlOutsideStore);
    expect({ 'SQL outside a store file': unlisted }).toEqual({ 'SQL outside a store file': [] });
    expect({ 'no SQL left: remove from PENDING.sqlOutsideStore': fixed }).toEqual({
      'no SQL left: remove from PENDING.sqlOutsideStore': [],
    });
  });

  it(`keeps every hand-written source file at ${MAX_LINES} lines or fewer`, () => {
    const violations = [...serviceFiles, ...packageFiles].filter((f) => lineCount(f) > MAX_LINES);
    const { unlisted, fixed } = ratchet(violations, PENDING.tooLong);
    expect({ [`longer than ${MAX_LINES} lines`]: unlisted }).toEqual({
      [`longer than ${MAX_LINES} lines`]: [],
    });
    expect({ 'short enough now: remove from PENDING.tooLong': fixed }).toEqual({
      'short enough now: remove from PENDING.tooLong': [],
    });
  });

  it('the rule sees SQL in a string and not in prose', () => {
    expect(SQL.test(codeOf("await tx.query('UPDATE vouchers SET status = $2 WHERE id = $1');"))).toBe(true);
    expect(SQL.test(codeOf('const q = `SELECT id\n  FROM jobs WHERE id = $1`;'))).toBe(true);
    expect(SQL.test(codeOf("await db.query('INSERT INTO media (id) VALUES ($1)');"))).toBe(true);
    expect(SQL.test(codeOf('// the conditional UPDATE takes the row lock (SELECT … FOR UPDATE)'))).toBe(
      false,
    );
    expect(SQL.test(codeOf('const selected = items.filter((i) => i.updated);'))).toBe(false);
  });

  it("matches each service README's table of rooms to the service's tree", () => {
    const problems: string[] = [];
    for (const svc of SERVICES) {
      const readme = path.join(root, 'services', svc, 'README.md');
      const text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : '';
      const section = /^## Rooms\n([\s\S]*?)(?=^## )/m.exec(text)?.[1];
      if (!section) {
        if (!ROOMS_PENDING.has(svc)) problems.push(`services/${svc}/README.md has no "## Rooms" table`);
        continue;
      }
      const listed: string[] = [];
      for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
        const first = row.split('|')[1] ?? '';
        let dir = '';
        for (const [, token] of first.matchAll(/`([^`]+)`/g)) {
          // `src/messaging/email.ts`, `sms.ts`: a bare name sits beside the path before it.
          const p = token!.includes('/') ? token! : dir + token!;
          dir = p.endsWith('/') ? p : p.slice(0, p.lastIndexOf('/') + 1);
          listed.push(p);
        }
      }
      for (const p of listed)
        if (!fs.existsSync(path.join(root, 'services', svc, p)))
          problems.push(`services/${svc}/README.md lists ${p}, which does not exist`);
      const files = serviceFiles
        .filter((f) => f.startsWith(`services/${svc}/src/`))
        .map((f) => f.slice(`services/${svc}/`.length));
      for (const f of files)
        if (!listed.some((p) => p === f || (p.endsWith('/') && f.startsWith(p))))
          problems.push(`services/${svc}/README.md's rooms do not cover ${f}`);
    }
    expect(problems).toEqual([]);
  });
});
