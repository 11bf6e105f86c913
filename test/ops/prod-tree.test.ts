// The production tree's checks (scripts/prod-tree.ts; CI runs the whole script with --boot):
// a dev, test or build package anywhere in a tree is caught, nested ones included, runtime
// libraries with look-alike names are not; pruning drops only files Node never loads.
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forbiddenIn, packagesIn, prune, treeBytes } from '../../scripts/prod-tree.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'prod-tree-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

describe('production tree checks', () => {
  it('find forbidden packages at any depth and let runtime libraries through', () => {
    const root = tree({
      'node_modules/pg/package.json': '{}',
      'node_modules/@swc/helpers/package.json': '{}', // a runtime helper, not the compiler
      'node_modules/@restatedev/restate-sdk/package.json': '{}',
      'node_modules/@restatedev/restate-server-linux-x64/package.json': '{}',
      'node_modules/pg/node_modules/typescript/package.json': '{}',
      'node_modules/@hallmark/devstack/package.json': '{}',
      'node_modules/jest-worker/package.json': '{}',
    });
    try {
      expect(packagesIn(root).has('typescript')).toBe(true);
      expect(forbiddenIn(root)).toEqual([
        '@hallmark/devstack',
        '@restatedev/restate-server-linux-x64',
        'jest-worker',
        'typescript',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('prune declarations, TypeScript sources, source maps and docs but keep code and licences', () => {
    const root = tree({
      'node_modules/a/index.js': 'x'.repeat(10),
      'node_modules/a/index.d.ts': 'x'.repeat(100),
      'node_modules/a/index.js.map': 'x'.repeat(100),
      'node_modules/a/src/index.ts': 'x'.repeat(100),
      'node_modules/a/README.md': 'x'.repeat(100),
      'node_modules/a/LICENSE.md': 'x'.repeat(5),
      'node_modules/a/data/font.afm': 'x'.repeat(5),
    });
    try {
      expect(prune(path.join(root, 'node_modules'))).toBe(400);
      const left = (f: string) => existsSync(path.join(root, 'node_modules/a', f));
      expect(['index.js', 'LICENSE.md', 'data/font.afm'].every(left)).toBe(true);
      expect(['index.d.ts', 'index.js.map', 'src/index.ts', 'README.md'].some(left)).toBe(false);
      expect(treeBytes(root)).toBe(20);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
