import { WebhookDto, WebhookLogDto } from './webhooks.dto';
import { WebhookLogRow, WebhookRow } from './webhooks.repository';

export function mapWebhook(r: WebhookRow): WebhookDto {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    is_active: r.is_active,
    content_type: r.content_type,
    scopes: r.scopes,
    version: r.version,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}

export function mapWebhookLog(r: WebhookLogRow): WebhookLogDto {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    delivery_id: r.delivery_id,
    event_id: r.event_id,
    event_type: r.event_type,
    request_method: r.request_method,
    request_headers: r.request_headers,
    request_body: r.request_body,
    response_status: r.response_status === null ? null : String(r.response_status),
    response_headers: r.response_headers,
    response_body: r.response_body,
    status_text: r.status_text,
    error_message: r.error_message,
    duration_ms: r.duration_ms,
    retry_count: r.attempt - 1,
    created_at: new Date(r.created_at).toISOString(),
  };
}
