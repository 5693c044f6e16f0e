import { DynamicModule, Module, Provider } from '@nestjs/common';
import type { AppConfig } from '../config/config';
import { DbMetrics } from './db-metrics';
import { HttpMetrics } from './http-metrics';
import { MetricsController } from './metrics.controller';
import { MetricsPortServer } from './metrics-port.server';
import { Metrics } from './metrics';

/**
 * Prometheus metrics (docs/operations.md): the registry every module may add to (`Metrics`), the request and
 * database metrics, and /metrics on the API port or on METRICS_PORT. Re-exported by the global CommonModule. With METRICS_ENABLED=false the registry
 * still exists (features may count into it) but nothing is collected per request and nothing is served.
 */
@Module({})
export class MetricsModule {
  static forRoot(cfg: AppConfig): DynamicModule {
    const { enabled, port } = cfg.metrics;
    const collectors: Provider[] = enabled ? [HttpMetrics, DbMetrics, MetricsPortServer] : [];
    return {
      module: MetricsModule,
      controllers: enabled && port === undefined ? [MetricsController] : [],
      providers: [{ provide: Metrics, useValue: new Metrics(enabled) }, ...collectors],
      exports: [Metrics],
    };
  }
}
