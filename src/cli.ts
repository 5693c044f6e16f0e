import 'reflect-metadata';
// Before TypeORM loads: its factory then loads PostgreSQL's driver only (peak RSS, issue 27).
import './common/database/postgres-driver-only';
import { DataSource } from 'typeorm';
import { resolveDatabase } from './common/database/database';
import { dataSourceOptions } from './common/database/data-source';
import { analyzeNeverAnalyzed, runMigrations } from './common/database/migrate';
import { ProblemException } from './common/errors/problem.exception';
import { LIST_SPECS, UsageError } from './cli-args';

const USAGE = `usage: npm run --silent cli -- <command> [--flags]
  migrate
  workspace create --slug S --name N
  user create --email E --display-name D
  user list
  user set-password --email E              (reads the password from standard input)
  member add --workspace S --email E --role owner|admin|member|guest
  member remove --workspace S --email E
  member list --workspace S [--per-page N] [--cursor C] [--role R] [--search T] ...   (as GET .../members/)
  api-key create --email E [--label L]
  api-key list --email E
  api-key revoke --id ID
  token create --email E --scopes a,b,c [--ttl SECONDS]
  app create --workspace S --name N --redirect-uri U[,U2...] [--scopes a,b,c] [--public] [--bot-role R]
  app list --workspace S
  audit list (--workspace S | --instance) [--per-page N] [--paginate cursor] [--cursor C] [--offset N]
             [--order-by F] [--search T] [--<filter> V ...]   (filters as the API's: --event-name, --category,
             --outcome, --actor-id, --target-type, --target-id, --ip-address, --created-after, --created-before)
  openapi [--write]`;

/** The flags each command takes (audit list: --workspace / --instance plus the API list's parameters). */
const COMMAND_FLAGS: Record<string, string[]> = {
  migrate: [],
  'workspace create': ['slug', 'name'],
  'user create': ['email', 'display-name'],
  'user list': [],
  'member add': ['workspace', 'email', 'role'],
  'member remove': ['workspace', 'email'],
  'member list': ['workspace'],
  'api-key create': ['email', 'label'],
  'api-key list': ['email'],
  'api-key revoke': ['id'],
  'token create': ['email', 'scopes', 'ttl'],
  'user set-password': ['email'],
  'app create': ['workspace', 'name', 'redirect-uri', 'scopes', 'public', 'bot-role'],
  'app list': ['workspace'],
  'audit list': ['workspace', 'instance'],
};

/** Flags that take no value (present = true). */
const SWITCHES = new Set(['instance', 'public']);

function parseFlags(args: string[]): Record<string, string> {
  // No prototype: `--__proto__ x` must be an own (unknown) flag, not a silent prototype assignment.
  const flags: Record<string, string> = Object.create(null);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument "${a}"`);
    if (SWITCHES.has(a.slice(2))) {
      flags[a.slice(2)] = 'true';
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`flag ${a} needs a value`);
      flags[a.slice(2)] = v;
      i++;
    }
  }
  return flags;
}

async function run(argv: string[]): Promise<unknown> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === 'help' || cmd === '--help') {
    writeAndExit(process.stderr, USAGE + '\n', 0);
    return new Promise(() => undefined);
  }
  if (!cmd) throw new UsageError('no command given');
  const key = ['migrate', 'openapi'].includes(cmd) ? cmd : `${cmd} ${sub ?? ''}`.trim();
  const flagArgs = ['migrate', 'openapi'].includes(cmd) ? argv.slice(1) : rest;
  const flags = key === 'openapi' ? {} : checkedFlags(key, flagArgs);

  const db = await resolveDatabase();
  try {
    const applied = await migrate(db.url);
    if (key === 'migrate') return { applied };
    // The application's modules load only now: --help and usage errors never pay for them.
    const commands = await import('./cli-commands.js');
    if (key === 'openapi') return await commands.openapi(db.url, flagArgs.includes('--write'));
    return await commands.adminCommand(db.url, key, flags);
  } finally {
    await db.stop();
  }
}

/** The command's flags, or a UsageError for an unknown command or flag. */
function checkedFlags(key: string, flagArgs: string[]): Record<string, string> {
  const allowed = COMMAND_FLAGS[key];
  if (!allowed) throw new UsageError(`unknown command "${key}"`);
  const flags = parseFlags(flagArgs);
  // A misspelt flag must not be dropped silently (`--tll 60` would issue a 24-hour token); the list commands
  // check their API list parameters themselves.
  if (!LIST_SPECS[key]) {
    const unknown = Object.keys(flags).find((f) => !allowed.includes(f));
    if (unknown) throw new UsageError(`unknown flag --${unknown} for ${key}`);
  }
  return flags;
}

async function migrate(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, 1));
  await ds.initialize();
  try {
    const applied = await runMigrations(ds, url);
    // As the service does at start-up: tables holding rows PostgreSQL never analyzed are analyzed now.
    await analyzeNeverAnalyzed(ds);
    return applied;
  } finally {
    await ds.destroy();
  }
}

/** Exits once `text` is flushed: stdout to a pipe is asynchronous, and exiting early truncates it. */
function writeAndExit(stream: NodeJS.WriteStream, text: string, code: number): void {
  stream.write(text, () => process.exit(code));
}

run(process.argv.slice(2))
  .then((out) => writeAndExit(process.stdout, JSON.stringify(out) + '\n', 0))
  .catch((err: unknown) => {
    let msg: string;
    if (err instanceof UsageError) msg = `${err.message} (run with --help for usage)`;
    else if (err instanceof ProblemException) msg = `${err.code}: ${err.detail}`;
    else msg = `error: ${(err as Error)?.message ?? String(err)}`;
    writeAndExit(process.stderr, msg.split('\n')[0] + '\n', err instanceof UsageError ? 2 : 1);
  });
