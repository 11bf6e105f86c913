// One version for Hallmark: every workspace package, the chart and the versions the CLI, the
// client and the OpenAPI document report agree, and are the newest release CHANGELOG.md names;
// every package is in the one fixed Changesets group; and `pnpm release` turns the Unreleased
// entries and the changesets' lines into that version's section in Keep a Changelog form.
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { entryOfChangeset, latestRelease, releaseChangelog } from '../../scripts/changelog.js';
import { packageDirs, root, versionsFound } from '../../scripts/versions.js';

const changelog = fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');

describe('the version', () => {
  it('is one version everywhere, the newest release of CHANGELOG.md', () => {
    const found = versionsFound();
    expect(found.length).toBeGreaterThan(packageDirs().length + 4);
    const newest = latestRelease(changelog);
    expect(newest).toMatch(/^\d+\.\d+\.\d+$/);
    expect(found.filter((f) => f.version !== newest).map((f) => `${f.where}: ${f.version}`)).toEqual([]);
  });

  it('moves every workspace package together: one fixed group of private packages', () => {
    const config = JSON.parse(fs.readFileSync(path.join(root, '.changeset/config.json'), 'utf8')) as {
      fixed: string[][];
      privatePackages: { version: boolean };
      changelog: unknown;
    };
    expect(config.fixed).toEqual([['@hallmark/*']]);
    expect(config.privatePackages.version).toBe(true);
    expect(config.changelog).toBe(false); // the one CHANGELOG.md is written by scripts/release.ts
    for (const dir of packageDirs()) {
      const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
      expect(`${dir}: ${pkg.name} private=${pkg.private}`).toMatch(/: @hallmark\/[a-z0-9-]+ private=true$/);
    }
  });
});

describe('CHANGELOG.md', () => {
  it('is in Keep a Changelog form: an Unreleased section, then releases newest first with dates', () => {
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)];
    expect(headings[0]![1]).toBe('Unreleased');
    const released = headings.slice(1).map((h) => ({ v: h[1]!.split('.').map(Number), date: h[2] }));
    expect(released.length).toBeGreaterThan(3);
    for (const r of released) expect(r.date).toBeDefined();
    for (let i = 1; i < released.length; i++) {
      const [a, b] = [released[i - 1]!.v, released[i]!.v];
      const newer = a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
      expect(newer).toBeGreaterThan(0);
      expect(released[i - 1]!.date! >= released[i]!.date!).toBe(true);
    }
    const sub = [...changelog.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    for (const s of sub)
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(s);
  });

  it('release: Unreleased entries and changeset lines become the version, filed by category', () => {
    const before =
      '# Changelog\n\n## [Unreleased]\n\n### Fixed\n\n- A fix,\n  on two lines.\n\n## [0.9.0] - 2026-11-29\n\n### Added\n\n- Old.\n';
    const entries = [
      entryOfChangeset("---\n'@hallmark/gateway': minor\n---\n\nAdded: a new\nendpoint.\n"),
      entryOfChangeset("---\n'@hallmark/kit': patch\n---\n\nFaster outbox.\n"),
    ];
    expect(entries).toEqual([
      { category: 'Added', text: 'a new endpoint.' },
      { category: 'Changed', text: 'Faster outbox.' },
    ]);
    expect(releaseChangelog(before, '0.10.0', '2026-12-01', entries)).toBe(
      '# Changelog\n\n## [Unreleased]\n\n## [0.10.0] - 2026-12-01\n\n' +
        '### Added\n\n- a new endpoint.\n\n### Changed\n\n- Faster outbox.\n\n' +
        '### Fixed\n\n- A fix,\n  on two lines.\n\n' +
        '## [0.9.0] - 2026-11-29\n\n### Added\n\n- Old.\n',
    );
    expect(latestRelease(releaseChangelog(before, '0.10.0', '2026-12-01', entries))).toBe('0.10.0');
  });

  it('release refuses a version already released, an unknown heading, and nothing to release', () => {
    const base = '## [Unreleased]\n\n## [0.9.0] - 2026-11-29\n';
    expect(() => releaseChangelog(base, '0.9.0', '2026-12-01', [{ category: 'Fixed', text: 'x' }])).toThrow(
      /already/,
    );
    expect(() => releaseChangelog(base, '0.10.0', '2026-12-01', [])).toThrow(/nothing to release/);
    expect(() =>
      releaseChangelog('## [Unreleased]\n\n### Improved\n\n- x\n', '0.10.0', '2026-12-01', []),
    ).toThrow(/unknown heading/);
  });
});
