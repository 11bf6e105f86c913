// Every route the gateway registers has its own inject tests: a `describe('<METHOD> <url>')`
// in one of this folder's files. A new route without one fails here, and so does a describe
// naming a route that no longer exists.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());

function testedRoutes(): Set<string> {
  const dir = import.meta.dirname;
  const tested = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')))
    for (const [, route] of fs
      .readFileSync(path.join(dir, file), 'utf8')
      .matchAll(/describe\(\s*'((?:GET|POST|PUT|PATCH|DELETE|OPTIONS) \/[^']*)'/g))
      tested.add(route!);
  return tested;
}

describe('the route catalogue', () => {
  it('has an inject test for every registered route', () => {
    const tested = testedRoutes();
    const routes = [...new Set(h.app.routeCatalog.map((r) => `${r.method} ${r.url}`))].sort();
    expect({
      'routes without inject tests': routes.filter((r) => !tested.has(r)),
    }).toEqual({
      'routes without inject tests': [],
    });
    expect({ 'tests of no registered route': [...tested].filter((r) => !routes.includes(r)) }).toEqual({
      'tests of no registered route': [],
    });
  });
});
