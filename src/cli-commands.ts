import { writeFileSync } from 'node:fs';
import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminModule } from './admin/admin.module';
import { AdminService } from './admin/admin.service';
import { AppsModule } from './apps/apps.module';
import { AppsService } from './apps/apps.service';
import { UsersModule } from './users/users.module';
import { PasswordsService } from './users/passwords.service';
import { AuditCoreModule } from './audit/audit-core.module';
import { loadConfig } from './common/config/config';
import { dataSourceOptions } from './common/database/data-source';
import { INT32_MAX } from './common/database/columns';
import { list, listQuery, need, UsageError } from './cli-args';

/**
 * The CLI's commands once its arguments are checked: the application modules they need, loaded only when a
 * command runs (src/cli.ts imports this file lazily, so `--help` and usage errors start no Nest and load no
 * feature).
 */

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

/** `openapi [--write]` on a migrated database: the application's document, printed or written to openapi.json. */
export async function openapi(url: string, write: boolean): Promise<unknown> {
  const base = loadConfig();
  // Built to be read, never served: no metrics (a METRICS_PORT of a running service would be taken).
  const cfg = { ...base, publicBaseUrl: 'http://localhost:3000', metrics: { ...base.metrics, enabled: false } };
  // The whole application, which the admin commands do not load.
  const { createApp } = await import('./app.factory.js');
  const { apiDocument, buildOpenApi } = await import('./common/openapi/openapi.js');
  const app = await createApp(cfg, url, { logger: false });
  const doc = buildOpenApi(app, cfg.publicBaseUrl);
  // v1's document (src/v1/), committed beside v2's as openapi-v1.json.
  const v1 = apiDocument('v1');
  await app.close();
  if (write) writeFileSync('openapi.json', JSON.stringify(doc, null, 2) + '\n');
  if (write && v1) writeFileSync('openapi-v1.json', JSON.stringify(v1, null, 2) + '\n');
  return write ? { written: 'openapi.json', paths: Object.keys(doc.paths).length } : doc;
}

/** Runs an admin command (every command but migrate and openapi) in the CLI's application context. */
export async function adminCommand(url: string, key: string, flags: Record<string, string>): Promise<unknown> {
  const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(url), { logger: false });
  try {
    return await command(ctx, key, flags);
  } finally {
    await ctx.close();
  }
}

/** One admin command in an open application context. */
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
