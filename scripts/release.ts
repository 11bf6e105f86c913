// `pnpm release`: makes the next version from the pending changesets (.changeset/*.md).
// 1. reads each changeset's line (before Changesets deletes the files);
// 2. `changeset version` bumps every workspace package — one fixed group, so all get the
//    highest bump any changeset asks for (.changeset/config.json);
// 3. writes that version where the code and the chart say it (scripts/versions.ts);
// 4. moves CHANGELOG.md's Unreleased entries and the changesets' lines into a section for the
//    version, dated today (scripts/changelog.ts).
// It commits nothing: review the diff, commit `Release <version>`, tag `v<version>`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { entryOfChangeset, releaseChangelog } from './changelog.js';
import { root, setVersion, versionsFound } from './versions.js';

const dir = path.join(root, '.changeset');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md');
if (files.length === 0) {
  console.error('Nothing to release: no changesets. Record a change with `pnpm changeset` first.');
  process.exit(1);
}
const entries = files.sort().map((f) => entryOfChangeset(fs.readFileSync(path.join(dir, f), 'utf8')));
const changelogFile = path.join(root, 'CHANGELOG.md');
const changelog = fs.readFileSync(changelogFile, 'utf8');
// The changelog's shape is checked before anything is changed.
releaseChangelog(changelog, '0.0.0-check', '1970-01-01', entries);

execFileSync(path.join(root, 'node_modules', '.bin', 'changeset'), ['version'], {
  cwd: root,
  stdio: 'inherit',
});

const versions = new Set(
  versionsFound()
    .filter((v) => v.where.includes('package.json'))
    .map((v) => v.version),
);
if (versions.size !== 1)
  throw new Error(`packages disagree after changeset version: ${[...versions].join(', ')}`);
const [version] = [...versions] as [string];
setVersion(version);
const today = new Date().toISOString().slice(0, 10);
fs.writeFileSync(changelogFile, releaseChangelog(changelog, version, today, entries));
console.log(`Hallmark ${version}: packages, chart and CHANGELOG.md updated (${files.length} changesets).`);
console.log(`Next: review the diff, then git commit -am 'Release ${version}' && git tag v${version}`);
