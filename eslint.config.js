// Lint: the recommended rules, plus the house's "never" rules (architecture.md › One service,
// inside), kept by the linter rather than by prose. `test/lint/boundaries.test.ts` proves each
// boundary rule fires on a fixture.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export const SERVICES = ['keys', 'vouchers', 'certificates', 'bulk', 'notify', 'platform'];

/** Libraries that do I/O: never in `domain/` (pure rules only). */
const IO_LIBRARIES = [
  'pg',
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  '@nats-io/jetstream',
  '@nats-io/nats-core',
  '@nats-io/transport-node',
  '@restatedev/restate-sdk',
  '@restatedev/restate-sdk-clients',
  'undici',
  'nodemailer',
  'ioredis',
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'net',
  'http',
  'node:http',
  'https',
  'node:https',
  'http2',
  'node:http2',
  'dns',
  'node:dns',
  'child_process',
  'node:child_process',
];

/**
 * The published client installs without the server's runtime: it imports no workspace code
 * but the dependency-free error catalogue (bundled into it), and no server library.
 */
const clientMessage =
  '@hallmark/client installs alone: only @hallmark/errors of the workspace (bundled), no server runtime.';

const domainMessage =
  'domain/ is pure: no I/O, no store, rpc, service, workers or workflows (architecture.md).';

/** Each service is a zone no other service, the gateway or the kit may import from. */
const zones = [
  ...SERVICES.map((svc) => ({
    target: `./services/${svc}`,
    from: './services',
    except: [`./${svc}`],
    message: 'Services never import each other: talk over gRPC and events.',
  })),
  {
    target: './services/gateway',
    from: './services',
    except: ['./gateway'],
    message: "The gateway never imports a service's code: it calls services over gRPC.",
  },
  {
    target: './packages/kit',
    from: './services',
    message: 'The kit is shared runtime: it never imports a service or the gateway.',
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'proto/gen/**',
      'packages/client/gen/**',
      '.hallmark/**',
      '.hallmark-test/**',
      '**/dist/**',
      '**/dist-stack/**',
      'services/gateway/console/**',
      'services/certificates/contracts/artifacts/**',
      // Deliberate violations, linted only by test/lint/boundaries.test.ts.
      'test/lint/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
    },
  },
  {
    files: ['services/**/*.ts', 'packages/**/*.ts', 'test/lint/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Dependencies are parsed as TypeScript too (else a cycle through a .ts file is missed).
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        // hallmark-source: a workspace package that publishes a build (@hallmark/client) is
        // read from its sources here, as tsc, jest and tsx read it.
        createTypeScriptImportResolver({
          alwaysTryTypes: true,
          noWarnOnMultipleProjects: true,
          conditionNames: ['hallmark-source', 'types', 'import', 'node', 'default'],
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['services/*/src/**/domain/**/*.ts', 'services/*/src/**/domain.ts', 'test/lint/**/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...IO_LIBRARIES.map((name) => ({ name, message: domainMessage })),
            {
              name: '@hallmark/kit',
              message:
                'domain/ takes the kit’s pure subpaths (@hallmark/kit/errors, /ids, /crypto …), not the barrel.',
            },
            // isIP and BlockList are pure; sockets are not.
            {
              name: 'node:net',
              allowImportNames: ['isIP', 'isIPv4', 'isIPv6', 'BlockList'],
              message: domainMessage,
            },
            {
              name: 'ethers',
              importNames: [
                'JsonRpcProvider',
                'WebSocketProvider',
                'Wallet',
                'Contract',
                'getDefaultProvider',
              ],
              message: domainMessage,
            },
          ],
          patterns: [
            {
              group: ['**/store', '**/store.js', '**/*-store.js', '**/store/**'],
              message: domainMessage,
            },
            {
              group: ['**/rpc.js', '**/service.js', '**/workers/**', '**/workflows/**'],
              message: domainMessage,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/client/src/**/*.ts', 'packages/errors/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@hallmark/*', '!@hallmark/errors'], message: clientMessage },
            {
              group: ['pg', 'pino', 'zod', '@grpc/*', '@nats-io/*', '@opentelemetry/*', 'undici'],
              message: clientMessage,
            },
          ],
        },
      ],
    },
  },
  {
    // @hallmark/verify is published alone and must verify with Hallmark gone: no workspace code,
    // no server runtime (ethers and the Digital Bazaar libraries only).
    files: ['packages/verify/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@hallmark/*',
                '**/services/**',
                'pg',
                'pino',
                'zod',
                '@grpc/*',
                '@nats-io/*',
                'undici',
              ],
              message:
                '@hallmark/verify depends on no Hallmark package or service (it must outlive Hallmark).',
            },
          ],
        },
      ],
    },
  },
  {
    // The error catalogue imports nothing at all: anything it imported, the client would carry.
    files: ['packages/errors/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['*', '!./*', '!../*'], message: '@hallmark/errors has no dependencies.' }] },
      ],
    },
  },
);
