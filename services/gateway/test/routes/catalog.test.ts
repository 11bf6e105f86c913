// Every route the gateway registers has its own inject tests: a `describe('<METHOD> <url>')`
// in one of this folder's files. The routes still waiting for theirs are listed in PENDING,
// which may only shrink: a new route without tests, or a pending route that got them, fails.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from './harness.js';

const PENDING = new Set<string>([
  'DELETE /api/v1/templates/:template_id/access/:user_id',
  'GET /api/v1/templates/:template_id/access',
  'POST /api/v1/templates/:template_id/access',
]);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function testedRoutes(): Set<string> {
  const dir = import.meta.dirname;
  const tested = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')))
    for (const [, route] of fs
      .readFileSync(path.join(dir, file), 'utf8')
      .matchAll(/describe\(\s*'((?:GET|POST|PUT|PATCH|DELETE) \/[^']*)'/g))
      tested.add(route!);
  return tested;
}

describe('the route catalogue', () => {
  it('has an inject test for every registered route, and PENDING lists only routes without one', () => {
    const tested = testedRoutes();
    const routes = [...new Set(h.app.routeCatalog.map((r) => `${r.method} ${r.url}`))].sort();
    expect({
      'routes without inject tests': routes.filter((r) => !tested.has(r) && !PENDING.has(r)),
    }).toEqual({
      'routes without inject tests': [],
    });
    expect({ 'tested now: remove from PENDING': [...PENDING].filter((r) => tested.has(r)) }).toEqual({
      'tested now: remove from PENDING': [],
    });
    expect({ 'no such route: remove from PENDING': [...PENDING].filter((r) => !routes.includes(r)) }).toEqual(
      {
        'no such route: remove from PENDING': [],
      },
    );
    expect({ 'tests of no registered route': [...tested].filter((r) => !routes.includes(r)) }).toEqual({
      'tests of no registered route': [],
    });
  });
});
