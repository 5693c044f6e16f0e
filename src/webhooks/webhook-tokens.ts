/** The webhook settings (WebhookSettings), provided by WebhookOutboxModule. */
export const WEBHOOK_SETTINGS = Symbol('WEBHOOK_SETTINGS');
