// The Grafana dashboard (deploy/grafana) stays true to the code: every `hallmark_*` series it
// queries is defined in a source file (or is one of prom-client's default process metrics,
// which the kit registers under the `hallmark_` prefix), so a renamed metric fails here, not
// on an operator's empty panel.
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'test' ? [] : sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('the Grafana dashboard', () => {
  it('queries only series the code defines', () => {
    const dashboard = fs.readFileSync(path.join(root, 'deploy/grafana/hallmark-golden-signals.json'), 'utf8');
    const queried = new Set(
      [...dashboard.matchAll(/\bhallmark_[a-z0-9_]+/g)]
        .map(([name]) => name.replace(/_(bucket|count|sum)$/, ''))
        .filter((name) => !/^hallmark_(process|nodejs)_/.test(name)),
    );
    const code = [...sources(path.join(root, 'packages')), ...sources(path.join(root, 'services'))]
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(queried.size).toBeGreaterThan(10);
    expect([...queried].filter((name) => !code.includes(`'${name}'`))).toEqual([]);
  });
});
