// The runbooks (docs/runbooks) and the deploy README stay true to the code: every `hallmark_*`
// series they name is defined in a source file, every label they put on it in `name{label…}`
// is one the code gives it, and nothing that exists is still called planned — so an operator
// never copies a query for a series that is not there. Database names (`hallmark_<svc>`) and
// prom-client's default process metrics (`hallmark_process_*`, `hallmark_nodejs_*`) are not
// series of ours.
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

const docs = [
  ...fs
    .readdirSync(path.join(root, 'docs/runbooks'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/runbooks/${f}`),
  'deploy/README.md',
];
const code = [...sources(path.join(root, 'packages')), ...sources(path.join(root, 'services'))]
  .map((f) => fs.readFileSync(f, 'utf8'))
  .join('\n');

const databases = new Set(fs.readdirSync(path.join(root, 'services')).map((svc) => `hallmark_${svc}`));
const seriesOf = (name: string) => name.replace(/_(bucket|count|sum)$/, '');
const ours = (name: string) => !databases.has(name) && !/^hallmark_(process|nodejs)(_|$)/.test(name);

/** Labels the code declares for a series: the array after `'name', 'help'` wherever it is created. */
function labelsInCode(name: string): Set<string> {
  const labels = new Set(['service', 'le']); // the kit's default label; histogram buckets
  const def = new RegExp(`'${name}',\\s*(['"])(?:(?!\\1)[^\\\\]|\\\\.)*\\1\\s*,\\s*\\[([^\\]]*)\\]`, 'g');
  for (const m of code.matchAll(def)) for (const [, l] of m[2]!.matchAll(/'([a-z_]+)'/g)) labels.add(l!);
  return labels;
}

describe('metric names in the runbooks and the deploy README', () => {
  const mentions = docs.flatMap((file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    return [...text.matchAll(/\bhallmark_[a-z0-9_]*[a-z0-9](\{[^}]*\})?/g)]
      .map((m) => {
        const line = text.slice(0, m.index).split('\n').length;
        return { where: `${file}:${line}`, name: seriesOf(m[0].replace(/\{.*$/, '')), labels: m[1] ?? '' };
      })
      .filter((m) => ours(m.name));
  });

  it('name only series the code defines', () => {
    expect(mentions.length).toBeGreaterThan(30);
    expect(mentions.filter((m) => !code.includes(`'${m.name}'`)).map((m) => `${m.where} ${m.name}`)).toEqual(
      [],
    );
  });

  it('put on each series only labels the code gives it', () => {
    const wrong = mentions
      .filter((m) => m.labels && code.includes(`'${m.name}'`))
      .flatMap((m) => {
        const known = labelsInCode(m.name);
        const used = [
          ...m.labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"[^"]*"|([a-zA-Z_]\w*)/g),
        ].map((u) => u[1] ?? u[2]!);
        return used.filter((l) => !known.has(l)).map((l) => `${m.where} ${m.name}{${l}}`);
      });
    expect(wrong).toEqual([]);
  });

  it('call nothing planned that the code already defines', () => {
    const stale = docs.flatMap((file) =>
      fs
        .readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, where: `${file}:${i + 1}` }))
        .filter(({ line }) => /\bplanned\b|being added|not on this branch|branch lands/i.test(line))
        .flatMap(({ line, where }) =>
          [...line.matchAll(/\bhallmark_[a-z0-9_]*[a-z0-9]/g)]
            .map(([n]) => seriesOf(n))
            .filter((n) => ours(n) && code.includes(`'${n}'`))
            .map((n) => `${where} ${n}`),
        ),
    );
    expect(stale).toEqual([]);
  });
});
