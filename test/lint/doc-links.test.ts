// The docs stand alone: a clone of this repository alone has everything its markdown points
// at. Every relative link of every tracked markdown file resolves to a file (and heading)
// inside the repository; nothing names the sibling `../shared` folder the project was
// specified in; README.md, CHANGELOG.md and docs/ link nowhere outside the repository at all
// (no web links either); and every repository path they name in a code span exists.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { anchorsOf, referencesIn, type Ref } from './doc-links.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.includes('node_modules/') && fs.existsSync(path.join(root, f)));
/** The repository's own account: links inside it only, and every file it names exists. */
const standalone = (file: string) => ['README.md', 'CHANGELOG.md'].includes(file) || file.startsWith('docs/');

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** What is wrong with one reference of `file`, or null. */
function problemOf(file: string, ref: Ref, exists = fs.existsSync): string | null {
  const { target } = ref;
  if (ref.kind === 'path')
    return exists(path.join(root, target)) ? null : `names ${target}, which does not exist`;
  if (SCHEME.test(target)) return standalone(file) ? `links outside the repository: ${target}` : null;
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart
    ? pathPart.startsWith('/')
      ? path.join(root, pathPart)
      : path.resolve(root, path.dirname(file), pathPart)
    : path.join(root, file);
  const rel = path.relative(root, resolved);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return `links outside the repository: ${target}`;
  if (!exists(resolved)) return `links to ${target}, which does not exist`;
  if (anchor && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor))
    return `links to #${anchor}, which ${rel} has no heading for`;
  return null;
}

describe('the markdown of the repository', () => {
  it('covers the README, the changelog and every doc under docs/', () => {
    expect(tracked).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/architecture.md']));
    expect(tracked.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(5);
    // The README names many files in code spans; each is checked like a link.
    expect(referencesIn(read('README.md')).filter((r) => r.kind === 'path').length).toBeGreaterThan(20);
  });

  it('never names the ../shared folder outside the repository', () => {
    const hits = tracked.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, i) =>
          /\.\.\/shared\b|(^|[\s`(])shared\/(spec|design)\//.test(line) ? [`${file}:${i + 1}`] : [],
        ),
    );
    expect(hits).toEqual([]);
  });

  it('has only links that resolve inside the repository, and names only files that exist', () => {
    const problems = tracked.flatMap((file) =>
      referencesIn(read(file))
        .filter((ref) => ref.kind === 'link' || standalone(file))
        .flatMap((ref) => {
          const problem = problemOf(file, ref);
          return problem ? [`${file}:${ref.line} ${problem}`] : [];
        }),
    );
    expect(problems).toEqual([]);
  });

  it('counts a link that escapes the root, a missing file or heading, and a web link in docs/ as problems', () => {
    const link = (target: string): Ref => ({ kind: 'link', target, line: 1 });
    expect(problemOf('docs/api.md', link('../../shared/spec/interface-spec.md'))).toMatch(/outside/);
    expect(problemOf('README.md', link('../shared/design/architecture.md'))).toMatch(/outside/);
    expect(problemOf('docs/api.md', link('nope.md'))).toMatch(/does not exist/);
    expect(problemOf('docs/api.md', link('security.md#no-such-heading'))).toMatch(/no heading/);
    expect(problemOf('docs/api.md', link('https://example.com/'))).toMatch(/outside/);
    expect(problemOf('docs/api.md', { kind: 'path', target: 'services/nope/README.md', line: 1 })).toMatch(
      /does not exist/,
    );
    expect(problemOf('docs/api.md', link('architecture.md'))).toBeNull();
    expect(
      problemOf('packages/cli/README.md', link('https://www.npmjs.com/package/cli-progress')),
    ).toBeNull();
  });

  it('reads links in prose, not in code', () => {
    const text = '[a](x.md)\n`[b](y.md)` `docs/api.md`\n```\n[c](z.md)\n```\n[d]: w.md\n<a href="v.md">v</a>';
    expect(referencesIn(text).map((r) => `${r.kind}:${r.target}`)).toEqual([
      'link:x.md',
      'path:docs/api.md',
      'link:w.md',
      'link:v.md',
    ]);
    expect([...anchorsOf('# API guide\n## Errors: codes & `types`\n## Errors: codes & types')]).toEqual([
      'api-guide',
      'errors-codes--types',
      'errors-codes--types-1',
    ]);
  });
});
