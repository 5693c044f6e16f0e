/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set.
 * main.ts imports this before anything else: the instrumentations patch pg and node:http when they are first
 * required, so they must be in place before those modules load. Without an endpoint nothing of the SDK is
 * loaded. An invalid setting starts nothing here; loadConfig() then stops the start with its message.
 */
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { tracingSettings } from '../config/config';

let sdk: NodeSDK | undefined;

function settingsOrNothing() {
  try {
    return tracingSettings();
  } catch {
    return undefined;
  }
}

const settings = settingsOrNothing();
if (settings?.endpoint) {
  // Loaded only when tracing is on: the SDK and its exporters cost start time and memory.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./tracing') as typeof import('./tracing');
  sdk = startTracing(settings);
}

/** Sends the spans still buffered and stops tracing (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
}
