import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { WorkspaceContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { Queryable } from '../common/pagination/sql-params';
import { ListQuery } from '../common/pagination/list-query';
import { refusal } from './address-policy';
import { changedAttributes } from './webhook-events';
import { WebhookQueue } from './webhook-queue';
import { WebhookSettings } from './webhook-settings';
import { WEBHOOK_SETTINGS } from './webhook-tokens';
import { CreateWebhookDto, UpdateWebhookDto, WebhookDto, WebhookLogDto, WebhookWithSecretDto } from './webhooks.dto';
import { mapWebhook, mapWebhookLog } from './webhooks.mapper';
import { WebhookRow, WebhooksRepository } from './webhooks.repository';

/** A new signing secret: 32 random bytes, hex, with a recognisable prefix (secret scanners). */
const newSecret = () => `wt_whsec_${randomBytes(32).toString('hex')}`;

/**
 * Webhook registrations (gap-reference 7): workspace owners and admins only. The secret is returned by create
 * and regenerate alone and never written to logs or audit entries. Every write records an audit entry (category
 * `webhook`) in its transaction.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
    private readonly audit: AuditService,
    private readonly queue: WebhookQueue,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
  ) {}

  async list(ctx: WorkspaceContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, q);
    return envelope(rows.map(mapWebhook));
  }

  async get(ctx: WorkspaceContext, id: string): Promise<WebhookDto> {
    return mapWebhook(await this.mustGet(ctx, id, this.ds));
  }

  async create(ctx: WorkspaceContext, dto: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    this.checkUrl(dto.url);
    const secret = newSecret();
    // This instance's job engine runs from its first webhook on (WebhookQueue), so its next event fans out at once.
    await this.queue.ensureStarted();
    return this.ds.transaction(async (tx) => {
      const row = await this.repo.insert(
        ctx.workspace.id,
        { ...dto, name: dto.name?.trim() || null, scopes: dto.scopes ?? ['*'] },
        secret,
        ctx.principal.userId,
        tx,
      );
      await this.record(tx, ctx, 'webhook.created', row, { new_value: auditView(row) });
      return { ...mapWebhook(row), secret_key: secret };
    });
  }

  async update(ctx: WorkspaceContext, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    if (dto.url !== undefined) this.checkUrl(dto.url);
    await this.queue.ensureStarted();
    return this.ds.transaction(async (tx) => {
      const before = await this.mustGet(ctx, id, tx, true);
      const name = dto.name === undefined ? undefined : dto.name?.trim() || null;
      const row = await this.repo.update(ctx.workspace.id, id, { ...dto, name }, tx);
      const old = changedAttributes(auditView(before), auditView(row));
      const changed = Object.fromEntries(Object.keys(old).map((k) => [k, auditView(row)[k]]));
      await this.record(tx, ctx, 'webhook.updated', row, { old_value: old, new_value: changed });
      return mapWebhook(row);
    });
  }

  async remove(ctx: WorkspaceContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const row = await this.mustGet(ctx, id, tx, true);
      await this.repo.remove(ctx.workspace.id, id, tx);
      await this.record(tx, ctx, 'webhook.deleted', row, { old_value: auditView(row) });
    });
  }

  /** A new secret replaces the old one at once; deliveries signed from now on use it. */
  async regenerate(ctx: WorkspaceContext, id: string): Promise<WebhookWithSecretDto> {
    const secret = newSecret();
    return this.ds.transaction(async (tx) => {
      await this.mustGet(ctx, id, tx, true);
      const row = await this.repo.setSecret(ctx.workspace.id, id, secret, tx);
      await this.record(tx, ctx, 'webhook.secret_regenerated', row, {});
      return { ...mapWebhook(row), secret_key: secret };
    });
  }

  async listLogs(ctx: WorkspaceContext, webhookId: string, q: ListQuery) {
    await this.mustGet(ctx, webhookId, this.ds);
    const { rows, envelope } = await this.repo.listLogs(ctx.workspace.id, webhookId, q);
    return envelope(rows.map(mapWebhookLog));
  }

  async getLog(ctx: WorkspaceContext, webhookId: string, id: string): Promise<WebhookLogDto> {
    await this.mustGet(ctx, webhookId, this.ds);
    const row = await this.repo.getLog(ctx.workspace.id, webhookId, id);
    if (!row) throw ProblemException.notFound('Webhook log');
    return mapWebhookLog(row);
  }

  private async mustGet(ctx: WorkspaceContext, id: string, db: Queryable, lock = false): Promise<WebhookRow> {
    const row = await this.repo.get(ctx.workspace.id, id, db, lock);
    if (!row) throw ProblemException.notFound('Webhook');
    return row;
  }

  /** An address literal the delivery would refuse is refused now; host names are judged at each delivery. */
  private checkUrl(url: string): void {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && refusal(host, host, this.settings.allowedHosts)) {
      throw ProblemException.validation(
        'url',
        `url points to ${host}, a loopback, private, link-local or reserved address; webhooks cannot reach it unless an operator lists it in WEBHOOK_ALLOWED_HOSTS.`,
      );
    }
  }

  private record(
    tx: Queryable,
    ctx: WorkspaceContext,
    event: string,
    row: WebhookRow,
    values: { old_value?: unknown; new_value?: unknown },
  ): Promise<void> {
    return this.audit.record(tx, ctx, {
      event_name: event,
      category: 'webhook',
      workspace_id: ctx.workspace.id,
      target_type: 'webhook',
      target_id: row.id,
      target_display_name: row.name ?? new URL(row.url).host,
      ...values,
    });
  }
}

/** What an audit entry shows of a webhook: never the secret. */
function auditView(r: WebhookRow): Record<string, unknown> {
  return { name: r.name, url: r.url, is_active: r.is_active, scopes: r.scopes, content_type: r.content_type };
}
