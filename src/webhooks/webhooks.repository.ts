import { WEBHOOK_LIST, WEBHOOK_LOG_LIST } from './webhooks.queries';
import { PartialUpdate, partialUpdateSql } from '../common/database/partial-update';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

const COLS = `w.id, w.workspace_id, w.name, w.url, w.is_active, w.content_type, w.scopes, w.version, w.created_at,
  w.updated_at, w.created_by_id`;

export interface WebhookRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  name: string | null;
  url: string;
  is_active: boolean;
  content_type: string;
  scopes: string[];
  version: string;
  created_at: Date;
  updated_at: Date;
  created_by_id: string | null;
}

export interface WebhookWrite {
  name?: string | null;
  url?: string;
  is_active?: boolean;
  content_type?: string;
  scopes?: string[];
  version?: string;
}

/** A webhook PATCH: the fields sent (always a statement: it returns the row). */
const WEBHOOK_UPDATE: PartialUpdate<WebhookWrite> = {
  table: 'webhooks w',
  columns: { name: {}, url: {}, is_active: {}, content_type: {}, scopes: {}, version: {} },
  where: 'w.workspace_id = $1 AND w.id = $2',
  returning: COLS,
  always: true,
};

const LOG_COLS = `l.id, l.webhook_id, l.delivery_id, l.event_id, l.event_type, l.attempt, l.request_method, l.request_headers,
  l.request_body, l.response_status, l.response_headers, l.response_body, l.status_text, l.error_message, l.duration_ms,
  l.created_at`;

export interface WebhookLogRow extends Record<string, unknown> {
  id: string;
  webhook_id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  request_method: string;
  request_headers: string | null;
  request_body: string | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  status_text: string;
  error_message: string;
  duration_ms: number | null;
  created_at: Date;
}

/** The webhooks API's statements; every one is scoped by workspace. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, q: ListQuery) {
    return runList<WebhookRow>(this.ds, WEBHOOK_LIST, q, {
      select: COLS,
      from: 'webhooks w',
      where: ['w.workspace_id = $1'],
      params: new SqlParams([workspaceId]),
    });
  }

  async get(workspaceId: string, id: string, db: Queryable = this.ds, lock = false): Promise<WebhookRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM webhooks w WHERE w.workspace_id = $1 AND w.id = $2${lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, id],
    );
    return rows[0] ?? null;
  }

  async insert(
    workspaceId: string,
    v: Required<Pick<WebhookWrite, 'url' | 'scopes'>> & WebhookWrite,
    secret: string,
    userId: string,
    db: Queryable,
  ): Promise<WebhookRow> {
    const rows = await db.query(
      `INSERT INTO webhooks AS w (workspace_id, name, url, is_active, content_type, scopes, version, secret_key, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${COLS}`,
      [
        workspaceId,
        v.name ?? null,
        v.url,
        v.is_active ?? true,
        v.content_type ?? 'application/json',
        v.scopes,
        v.version ?? 'v2',
        secret,
        userId,
      ],
    );
    return rows[0];
  }

  /** Applies the fields sent. Turning a webhook on again forgets its failing streak. */
  async update(workspaceId: string, id: string, v: WebhookWrite, db: Queryable): Promise<WebhookRow> {
    const stamps = [
      'updated_at = now()',
      ...(v.is_active === true ? ['failing_since = NULL', 'disabled_at = NULL'] : []),
    ];
    const p = new SqlParams([workspaceId, id]);
    const [rows] = await db.query(partialUpdateSql({ ...WEBHOOK_UPDATE, stamps }, v, p)!, p.values);
    return rows[0];
  }

  async setSecret(workspaceId: string, id: string, secret: string, db: Queryable): Promise<WebhookRow> {
    const [rows] = await db.query(
      `UPDATE webhooks w SET secret_key = $3, updated_at = now() WHERE w.workspace_id = $1 AND w.id = $2 RETURNING ${COLS}`,
      [workspaceId, id, secret],
    );
    return rows[0];
  }

  /** Deletes the webhook with its deliveries and logs (foreign keys cascade); jobs still queued find nothing. */
  async remove(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  }

  listLogs(workspaceId: string, webhookId: string, q: ListQuery) {
    return runList<WebhookLogRow>(this.ds, WEBHOOK_LOG_LIST, q, {
      select: LOG_COLS,
      from: 'webhook_logs l',
      where: ['l.workspace_id = $1', 'l.webhook_id = $2'],
      params: new SqlParams([workspaceId, webhookId]),
    });
  }

  async getLog(workspaceId: string, webhookId: string, id: string): Promise<WebhookLogRow | null> {
    const rows = await this.ds.query(
      `SELECT ${LOG_COLS} FROM webhook_logs l WHERE l.workspace_id = $1 AND l.webhook_id = $2 AND l.id = $3`,
      [workspaceId, webhookId, id],
    );
    return rows[0] ?? null;
  }
}
