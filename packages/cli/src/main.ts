// The `hallmark` program: global options, every command group, and one place where a
// failure becomes a message with the API's error code and request id and a non-zero exit.
// A command group lives in its own file under commands/.
import { Command, CommanderError } from 'commander';
import { reportError } from './context.js';
import { loginCommand, tokenCommand } from './commands/auth.js';
import { bulkCommand } from './commands/bulk.js';
import { certificatesCommand, costCommand } from './commands/certificates.js';
import { completionCommand } from './commands/completion.js';
import { inboxCommand } from './commands/inbox.js';
import { keysCommand } from './commands/keys.js';
import { listenCommand } from './commands/listen.js';
import { profileCommand } from './commands/profile.js';
import { shopCommand } from './commands/shop.js';
import { verifyCommand } from './commands/verify.js';
import { vouchersCommand } from './commands/vouchers.js';
import { webhooksCommand } from './commands/webhooks.js';

export function buildProgram(): Command {
  const program = new Command('hallmark')
    .description(
      'Hallmark from the terminal: bulk certificate jobs, keys, vouchers, webhooks, certificates, issuer profile, proof bundle verification',
    )
    .version('0.9.0')
    .option('--json', 'print exactly the API objects as JSON (for scripts)')
    .option('--base-url <url>', 'API base URL (env HALLMARK_BASE_URL; default http://127.0.0.1:8080)')
    .option('--api-key <key>', 'API key (env HALLMARK_API_KEY)')
    .option('--token <jwt>', 'session token (env HALLMARK_TOKEN)')
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExit status: 0 ok; 1 API or job failure; 2 invalid request; 3 authentication or permission;\n' +
        '4 not found; 5 rate limited. Errors print the API error code and request id.',
    );
  for (const c of [
    loginCommand(),
    tokenCommand(),
    bulkCommand(),
    keysCommand(),
    vouchersCommand(),
    webhooksCommand(),
    listenCommand(),
    certificatesCommand(),
    costCommand(),
    profileCommand(),
    shopCommand(),
    inboxCommand(),
    verifyCommand(),
  ]) {
    program.addCommand(c);
  }
  program.addCommand(completionCommand(program));
  // Every command and subcommand: help on errors, commander's exits turned into throws.
  const walk = (c: Command) => {
    c.exitOverride().showHelpAfterError();
    c.commands.forEach(walk);
  };
  walk(program);
  return program;
}

export async function main(argv = process.argv): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    return reportError(err, Boolean(program.opts().json));
  }
}
