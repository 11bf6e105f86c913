// The stack of services a bench runs on. A measured run gives each bench a stack of its own
// (nothing left over from another bench moves its numbers); a smoke run shares one between
// the benches that need nothing special (started once, with anvil, and closed by run.ts), as
// a stack takes longer to start and stop than a smoke bench takes to run.
import type { StackOptions } from '@hallmark/devstack';
import type { TestStack } from '@hallmark/e2e';
import { SMOKE } from './lib.js';

let shared: Promise<TestStack> | undefined;

export async function benchStack(opts: Partial<StackOptions> = {}): Promise<TestStack> {
  const { startTestStack } = await import('@hallmark/e2e');
  // A bench that needs Restate or an environment of its own always gets its own stack.
  if (!SMOKE || opts.restate || opts.env) return startTestStack({ logLevel: 'warn', ...opts });
  shared ??= startTestStack({ logLevel: 'warn', anvil: true });
  return { ...(await shared), close: async () => undefined };
}

/** Closes the stack the smoke run's benches shared, if one was started. */
export async function closeSharedStack(): Promise<void> {
  const stack = await shared;
  shared = undefined;
  await stack?.close();
}
