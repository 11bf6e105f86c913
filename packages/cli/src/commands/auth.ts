// `hallmark login` (base URL and an API key or session token, saved 0600) and `hallmark token`
// (a dev session token the running dev stack accepts: dev-session.ts says which secret).
import { Command, Option } from 'commander';
import { createInterface } from 'node:readline/promises';
import { configPath, DEFAULT_BASE_URL, readConfig, writeConfig } from '../config.js';
import { devToken } from '../dev-session.js';

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export function loginCommand(): Command {
  return new Command('login')
    .description(`Save the base URL and an API key or session token (to ${configPath()}, mode 0600)`)
    .addHelpText(
      'after',
      '\nWith neither --api-key nor --token the credential is read from stdin.\n' +
        'HALLMARK_BASE_URL, HALLMARK_API_KEY and HALLMARK_TOKEN override the saved values.',
    )
    .action(async (_o, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ baseUrl?: string; apiKey?: string; token?: string }>();
      const saved = readConfig();
      const baseUrl = g.baseUrl ?? saved.baseUrl ?? DEFAULT_BASE_URL;
      let { apiKey, token } = g;
      if (!apiKey && !token) {
        const value = await ask('API key (pk_…) or session token: ');
        if (/^pk_(live|test|restricted)_/.test(value)) apiKey = value;
        else token = value;
      }
      if (!apiKey && !token) throw new Error('No credential given.');
      writeConfig({ baseUrl, ...(apiKey ? { apiKey } : { token }) });
      console.error(`Saved ${apiKey ? 'API key' : 'session token'} for ${baseUrl} in ${configPath()}.`);
    });
}

export function tokenCommand(): Command {
  return new Command('token')
    .description('Print a dev session token the running dev stack accepts (valid 12 hours)')
    .option('--ent <id>', 'enterprise id (default: the dev stack’s demo enterprise)')
    .addHelpText(
      'after',
      "\nSigned with HALLMARK_JWT_SECRET when set, else with the secret in the stack's data folder\n" +
        '(HALLMARK_DATA_DIR, default ./.hallmark). Nothing is written; with neither it fails.',
    )
    .option('--sub <user>', 'user id', 'dev-user')
    .addOption(new Option('--role <role>').choices(['owner', 'admin', 'member']).default('owner'))
    .option('--email <addr>', 'e-mail claim')
    .option('--save', 'also save it as the credential (like `hallmark login --token`)')
    .action(
      async (o: {
        ent?: string;
        sub: string;
        role: 'owner' | 'admin' | 'member';
        email?: string;
        save?: boolean;
      }) => {
        const jwt = await devToken(o.ent, { sub: o.sub, role: o.role, email: o.email });
        console.log(jwt);
        if (o.save) {
          const saved = readConfig();
          writeConfig({ baseUrl: saved.baseUrl ?? DEFAULT_BASE_URL, token: jwt });
          console.error(`Saved in ${configPath()}.`);
        }
      },
    );
}
