// Hallmark's one version: every workspace package (one fixed Changesets group, bumped by
// `changeset version`) and the places outside a package.json that say it — the chart, the
// version the CLI, the client and the OpenAPI document report, the deploy README's examples.
// `pnpm release` sets them (setVersion); test/lint/versions.test.ts checks they all agree
// with each other and with the newest release in CHANGELOG.md.
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');

/** Each place a version is written outside package.json: group 2 of `pattern` is the version. */
export const VERSION_SITES: { file: string; pattern: RegExp }[] = [
  { file: 'deploy/helm/hallmark/Chart.yaml', pattern: /^(version: )(\d+\.\d+\.\d+\S*)()$/gm },
  { file: 'deploy/helm/hallmark/Chart.yaml', pattern: /^(appVersion: ')([^']+)(')$/gm },
  { file: 'packages/cli/src/main.ts', pattern: /(\.version\(')([^']+)('\))/g },
  { file: 'packages/client/src/client.ts', pattern: /(export const VERSION = ')([^']+)(')/g },
  {
    file: 'services/gateway/src/plugins/openapi.ts',
    pattern: /(info: \{ title: 'Hallmark API', version: ')([^']+)(')/g,
  },
  { file: 'deploy/README.md', pattern: /(hallmark\/hallmark:|image\.tag=)(\d+\.\d+\.\d+)()/g },
];

/** The workspace packages' directories (pnpm-workspace.yaml's `packages` globs: `dir` or `dir/*`). */
export function packageDirs(): string[] {
  const yaml = fs.readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\n((?:\s+- .+\n)+)/m.exec(yaml)?.[1] ?? '';
  return [...block.matchAll(/- (.+)/g)].flatMap(([, glob]) => {
    const g = glob!.trim().replace(/^['"]|['"]$/g, '');
    if (!g.endsWith('/*')) return [g];
    const parent = g.slice(0, -2);
    return fs
      .readdirSync(path.join(root, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, parent, e.name, 'package.json')))
      .map((e) => `${parent}/${e.name}`);
  });
}

export interface Found {
  where: string;
  version: string;
}

/** Every version written in the repository: each package's, then each site's. */
export function versionsFound(): Found[] {
  const packages = packageDirs().map((dir) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    return { where: `${pkg.name} (${dir}/package.json)`, version: pkg.version };
  });
  const sites = VERSION_SITES.flatMap(({ file, pattern }) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(pattern)].map((m) => ({
      where: `${file} (${m[1]!.trim()})`,
      version: m[2]!,
    })),
  );
  return [...packages, ...sites];
}

/** Writes `version` at every site outside package.json (changeset version did the packages). */
export function setVersion(version: string): void {
  for (const file of new Set(VERSION_SITES.map((s) => s.file))) {
    let text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const { pattern } of VERSION_SITES.filter((s) => s.file === file)) {
      if (!pattern.test(text)) throw new Error(`${file}: no version matches ${pattern}`);
      pattern.lastIndex = 0;
      text = text.replace(pattern, (_m, pre: string, _v: string, post: string) => `${pre}${version}${post}`);
    }
    fs.writeFileSync(path.join(root, file), text);
  }
}
