import { LoggerService } from '@nestjs/common';
import { traceLogFields } from '../tracing/log-fields';

export const LEVELS: Record<string, number> = {
  trace: 10,
  verbose: 10,
  debug: 20,
  log: 30,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/**
 * Nest's start-up chatter (a line per module, controller and route: some 200 lines), logged at debug: at the
 * default level the first screen shows the bootstrap key and the Swagger address (LOG_LEVEL=debug brings it back).
 */
const START_UP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** Structured JSON lines for Nest's own logs, matching Fastify's pino request logs. */
export class JsonLogger implements LoggerService {
  private readonly min: number;
  constructor(level = 'info') {
    this.min = LEVELS[level] ?? 30;
  }
  private write(level: string, message: unknown, context?: string, extra?: Record<string, unknown>) {
    if ((LEVELS[level] ?? 30) < this.min) return;
    // An Error has no enumerable members: spread, it would log nothing (a failing provider said only "ExceptionHandler").
    const base =
      message instanceof Error
        ? { msg: message.message, stack: message.stack }
        : typeof message === 'object' && message !== null
          ? (message as Record<string, unknown>)
          : { msg: String(message) };
    const line = JSON.stringify({
      level: LEVELS[level],
      time: Date.now(),
      context,
      ...traceLogFields(),
      ...base,
      ...extra,
    });
    (level === 'error' || level === 'fatal' ? process.stderr : process.stdout).write(line + '\n');
  }
  log(message: unknown, context?: string) {
    this.write(context && START_UP_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, stack?: string, context?: string) {
    this.write('error', message, context, stack ? { stack } : undefined);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('verbose', message, context);
  }
  fatal(message: unknown, context?: string) {
    this.write('fatal', message, context);
  }
}
