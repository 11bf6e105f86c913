// The house's "never" rules (architecture.md › One service, inside) are kept by `pnpm lint`:
// each rule is shown firing on a fixture, so a change to eslint.config.js that silently drops
// one fails here. Fixture sources are linted as if they stood at the path given.
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function fired(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('boundaries kept by the linter', () => {
  it('a service never imports another service', async () => {
    const messages = await fired(
      'services/keys/src/fixture.ts',
      "export { loadConfig } from '../../vouchers/src/config.js';\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*Services never import each other/),
    ]);
  });

  it("the gateway never imports a service's code", async () => {
    const messages = await fired(
      'services/gateway/src/fixture.ts',
      "export * from '../../bulk/src/domain/job.js';\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*gateway never imports/),
    ]);
  });

  it('the kit never imports a service or the gateway', async () => {
    const messages = await fired(
      'packages/kit/src/fixture.ts',
      "export * from '../../../services/gateway/src/config.js';\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*kit is shared runtime/),
    ]);
  });

  it('domain/ never imports a store, rpc, service, worker or workflow', async () => {
    for (const target of [
      '../store.js',
      '../rpc.js',
      '../service.js',
      '../workers/sweeper.js',
      '../workflows/job.js',
    ]) {
      const messages = await fired('services/vouchers/src/domain/fixture.ts', `export * from '${target}';\n`);
      expect([target, messages]).toEqual([
        target,
        [expect.stringMatching(/^no-restricted-imports: .*domain\/ is pure/)],
      ]);
    }
  });

  it('domain/ never imports an I/O library or the kit barrel; pure helpers are allowed', async () => {
    for (const lib of [
      'pg',
      'undici',
      '@grpc/grpc-js',
      '@nats-io/jetstream',
      'node:fs',
      'node:http',
      '@hallmark/kit',
    ]) {
      const messages = await fired('services/notify/src/webhooks/domain/fixture.ts', `import '${lib}';\n`);
      expect([lib, messages]).toEqual([lib, [expect.stringMatching(/^no-restricted-imports: /)]]);
    }
    const sockets = await fired(
      'services/keys/src/domain/fixture.ts',
      "export { connect } from 'node:net';\n",
    );
    expect(sockets).toEqual([expect.stringMatching(/^no-restricted-imports: /)]);
    const pure = await fired(
      'services/keys/src/domain/fixture.ts',
      "export { isIP } from 'node:net';\nexport { HallmarkError } from '@hallmark/kit/errors';\nexport { getAddress } from 'ethers';\n",
    );
    expect(pure).toEqual([]);
  });

  it('the client imports no server runtime and no workspace code but the error catalogue', async () => {
    for (const lib of [
      '@hallmark/kit',
      '@hallmark/kit/errors',
      'pg',
      '@grpc/grpc-js',
      '@nats-io/jetstream',
    ]) {
      const messages = await fired('packages/client/src/fixture.ts', `import '${lib}';\n`);
      expect([lib, messages]).toEqual([
        lib,
        [expect.stringMatching(/^no-restricted-imports: .*installs alone/)],
      ]);
    }
    const allowed = await fired(
      'packages/client/src/fixture.ts',
      "export { isErrorCode } from '@hallmark/errors';\nexport { createHmac } from 'node:crypto';\n",
    );
    expect(allowed).toEqual([]);
  });

  it('the error catalogue imports nothing', async () => {
    for (const lib of ['zod', 'node:fs', '@hallmark/kit/errors']) {
      const messages = await fired('packages/errors/src/fixture.ts', `import '${lib}';\n`);
      expect([lib, messages]).toEqual([
        lib,
        [expect.stringMatching(/^no-restricted-imports: .*no dependencies/)],
      ]);
    }
  });

  it('no import cycles', async () => {
    const file = path.join(root, 'test/lint/fixtures/cycle/a.ts');
    const lint = new ESLint({ cwd: root, ignore: false });
    const [result] = await lint.lintFiles([file]);
    expect(result!.messages.map((m) => m.ruleId)).toContain('import-x/no-cycle');
  });

  it('the tree as it stands breaks none of these rules', async () => {
    // The cache `pnpm lint` writes: after a lint of the same tree, only changed files are linted again.
    const cached = new ESLint({ cwd: root, cache: true, cacheLocation: 'node_modules/.cache/eslint/' });
    const results = await cached.lintFiles(['services', 'packages']);
    const broken = results.flatMap((r) =>
      r.messages
        .filter((m) => /no-restricted|no-cycle/.test(m.ruleId ?? ''))
        .map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId}`),
    );
    expect(broken).toEqual([]);
  }, 120_000);
});
