import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AdminModule } from './admin/admin.module';
import { AdminService } from './admin/admin.service';
import { AppsModule } from './apps/apps.module';
import { AppsService } from './apps/apps.service';
import { UsersModule } from './users/users.module';
import { PasswordsService } from './users/passwords.service';
import { AuditCoreModule } from './audit/audit-core.module';
import { loadConfig } from './common/config/config';
import { resolveDatabase } from './common/database/database';
import { dataSourceOptions } from './common/database/data-source';
import { runMigrations } from './common/database/migrate';
import { ProblemException } from './common/errors/problem.exception';
import { createApp } from './app.factory';
import { apiDocument, buildOpenApi } from './common/openapi/openapi';
import { AUDIT_LOG_LIST } from './audit/audit-logs.queries';
import { MEMBER_LIST } from './members/members.queries';
import type { ListSpec } from './common/pagination/list-spec';
import { INT32_MAX } from './common/database/columns';

@Module({})
class CliModule {
  static forRoot(url: string): DynamicModule {
    return {
      module: CliModule,
      imports: [
        TypeOrmModule.forRoot(dataSourceOptions(url, 2)),
        AuditCoreModule,
        AdminModule,
        AppsModule,
        UsersModule,
      ],
    };
  }
}

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

class UsageError extends Error {}

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

function need(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new UsageError(`missing --${name}`);
  return v;
}

/** `openapi [--write]`: the OpenAPI document of the application, printed or written to openapi.json. */
async function openapi(write: boolean): Promise<unknown> {
  const base = loadConfig();
  // Built to be read, never served: no metrics (a METRICS_PORT of a running service would be taken).
  const cfg = { ...base, publicBaseUrl: 'http://localhost:3000', metrics: { ...base.metrics, enabled: false } };
  const db = await resolveDatabase();
  try {
    await migrate(db.url);
    const app = await createApp(cfg, db.url, { logger: false });
    const doc = buildOpenApi(app, cfg.publicBaseUrl);
    // v1's document (src/v1/), committed beside v2's as openapi-v1.json.
    const v1 = apiDocument('v1');
    await app.close();
    if (write) writeFileSync('openapi.json', JSON.stringify(doc, null, 2) + '\n');
    if (write && v1) writeFileSync('openapi-v1.json', JSON.stringify(v1, null, 2) + '\n');
    return write ? { written: 'openapi.json', paths: Object.keys(doc.paths).length } : doc;
  } finally {
    await db.stop();
  }
}

/** Runs an admin command (every command but migrate and openapi) in the CLI's application context. */
async function command(ctx: INestApplicationContext, key: string, flags: Record<string, string>): Promise<unknown> {
  const admin = ctx.get(AdminService);
  switch (key) {
    case 'workspace create':
      return await admin.createWorkspace(need(flags, 'slug'), need(flags, 'name'));
    case 'user create':
      return await admin.createUser(need(flags, 'email'), need(flags, 'display-name'));
    case 'member add':
      return await admin.addMember(need(flags, 'workspace'), need(flags, 'email'), need(flags, 'role'));
    case 'member remove':
      return await admin.removeMember(need(flags, 'workspace'), need(flags, 'email'));
    case 'api-key create':
      return await admin.createApiKey(need(flags, 'email'), flags.label ?? '');
    case 'api-key revoke':
      return await admin.revokeApiKey(need(flags, 'id'));
    case 'api-key list':
      return await admin.listApiKeys(need(flags, 'email'));
    case 'user list':
      return await admin.listUsers();
    case 'member list': {
      const { workspace, ...rest } = flags;
      return await admin.listMembers(need({ workspace }, 'workspace'), listQuery(key, rest));
    }
    case 'token create': {
      const scopes = need(flags, 'scopes')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const ttl = flags.ttl === undefined ? undefined : Number(flags.ttl);
      if (ttl !== undefined && (!/^\d+$/.test(flags.ttl) || ttl <= 0 || ttl > INT32_MAX))
        throw new UsageError(`--ttl must be a whole number of seconds, 1 to ${INT32_MAX}`);
      return await admin.createToken(need(flags, 'email'), scopes, ttl);
    }
    case 'user set-password':
      return await ctx.get(PasswordsService).setPassword(need(flags, 'email'), await readPassword());
    case 'app create':
      return await ctx.get(AppsService).create({
        workspace: need(flags, 'workspace'),
        name: need(flags, 'name'),
        redirectUris: list(need(flags, 'redirect-uri')),
        scopes: flags.scopes === undefined ? undefined : list(flags.scopes),
        isPublic: flags.public === 'true',
        botRole: flags['bot-role'],
      });
    case 'app list':
      return { data: await ctx.get(AppsService).list(need(flags, 'workspace')) };
    case 'audit list': {
      const { workspace, instance, ...rest } = flags;
      if ((workspace === undefined) === (instance === undefined))
        throw new UsageError('give exactly one of --workspace S and --instance');
      return await admin.auditList(instance ? null : workspace, listQuery(key, rest));
    }
  }
  return null;
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
  if (key === 'openapi') return openapi(flagArgs.includes('--write'));
  const allowed = COMMAND_FLAGS[key];
  if (!allowed) throw new UsageError(`unknown command "${key}"`);
  const flags = parseFlags(flagArgs);
  // A misspelt flag must not be dropped silently (`--tll 60` would issue a 24-hour token); the list commands
  // check their API list parameters themselves.
  if (!LIST_SPECS[key]) {
    const unknown = Object.keys(flags).find((f) => !allowed.includes(f));
    if (unknown) throw new UsageError(`unknown flag --${unknown} for ${key}`);
  }

  const db = await resolveDatabase();
  try {
    const applied = await migrate(db.url);
    if (key === 'migrate') return { applied };
    const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(db.url), { logger: false });
    try {
      return await command(ctx, key, flags);
    } finally {
      await ctx.close();
    }
  } finally {
    await db.stop();
  }
}

/** `a,b, c` -> ['a', 'b', 'c']. */
function list(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The password on standard input (its first line), so it never shows in the process list or shell history. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const password = text.split(/\r?\n/)[0];
  if (!password) throw new UsageError('give the password on standard input');
  return password;
}

const LIST_PARAMS = ['per_page', 'paginate', 'cursor', 'offset', 'order_by', 'search', 'count'];

/** The commands that read an API list, with that list's spec (its filters are flags too). */
const LIST_SPECS: Record<string, ListSpec | undefined> = { 'audit list': AUDIT_LOG_LIST, 'member list': MEMBER_LIST };

/** `--event-name x` -> `event_name=x`: the API list's parameters, validated by the same parser. */
function listQuery(command: string, flags: Record<string, string>): Record<string, string> {
  const allowed = new Set([...LIST_PARAMS, ...(LIST_SPECS[command]?.filters ?? []).map((f) => f.name)]);
  const query: Record<string, string> = {};
  for (const [flag, value] of Object.entries(flags)) {
    const name = flag.replace(/-/g, '_');
    if (!allowed.has(name)) throw new UsageError(`unknown flag --${flag} for ${command}`);
    query[name] = value;
  }
  return query;
}

async function migrate(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, 1));
  await ds.initialize();
  try {
    return await runMigrations(ds, url);
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
