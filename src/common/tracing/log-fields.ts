import { isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * `trace_id` and `span_id` of the span active where a log line is written (OpenTelemetry's log field names),
 * so a log line leads to its trace. Empty when tracing is off: without the SDK there is never an active span
 * (a lookup in the no-op context, nothing more).
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ctx = span.spanContext();
  return isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}
