import {
  collectDefaultMetrics,
  Counter,
  CounterConfiguration,
  Gauge,
  GaugeConfiguration,
  Histogram,
  HistogramConfiguration,
  Metric,
  Registry,
} from 'prom-client';
import { FastHistogram, FastHistogramConfig } from './fast-histogram';

/** Latency buckets in seconds: most requests and statements of this service take 0.2 to 30 ms. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Config<C> = Omit<C, 'registers'>;

/**
 * The service's Prometheus registry, one per application. Any module adds its own metrics by injecting
 * `Metrics` (a global provider) and asking for them by name: `counter`, `histogram` and `gauge` return the
 * registered metric, created on first use, so two providers asking for one name share it. Common code
 * never reaches into a feature: a feature pushes its numbers here (docs/operations.md, "Adding metrics").
 *
 * Label values must come from a fixed, small set (a route template, a method, an outcome): never an id,
 * a slug, a path or a message, which would make a series per value (docs/operations.md).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly fast = new Map<string, FastHistogram<string>>();

  /** `processMetrics`: Node's own gauges (event loop lag, heap, GC, CPU, handles), off when metrics are off. */
  constructor(processMetrics: boolean) {
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  counter<L extends string>(config: Config<CounterConfiguration<L>>): Counter<L> {
    return this.getOrCreate(config, Counter, () => new Counter({ ...config, registers: [this.registry] }));
  }

  histogram<L extends string>(config: Config<HistogramConfiguration<L>>): Histogram<L> {
    return this.getOrCreate(config, Histogram, () => new Histogram({ ...config, registers: [this.registry] }));
  }

  /** A gauge; give it `collect` to read the value at scrape time (queue depth, pool size). */
  gauge<L extends string>(config: Config<GaugeConfiguration<L>>): Gauge<L> {
    return this.getOrCreate(config, Gauge, () => new Gauge({ ...config, registers: [this.registry] }));
  }

  /**
   * A histogram for code that runs on every request or statement: the caller resolves a series per label set once
   * and observes into it at the cost of a few additions (src/common/metrics/fast-histogram.ts).
   */
  fastHistogram<L extends string>(config: FastHistogramConfig<L>): FastHistogram<L> {
    const existing = this.fast.get(config.name);
    if (existing) {
      if (existing.labelNames.join() !== config.labelNames.join())
        throw new Error(`metric ${config.name} is already registered with other labels`);
      return existing as FastHistogram<L>;
    }
    const created = new FastHistogram(config);
    for (const m of created.metrics()) this.registry.registerMetric(m);
    this.fast.set(config.name, created);
    return created;
  }

  /** The Prometheus text exposition of every metric. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private getOrCreate<M extends Metric>(
    config: { name: string; labelNames?: readonly string[] },
    kind: abstract new (...args: never[]) => M,
    create: () => M,
  ): M {
    const existing = this.registry.getSingleMetric(config.name);
    if (!existing) return create();
    const labels = (m: Metric) => [...((m as unknown as { labelNames?: string[] }).labelNames ?? [])].sort().join();
    if (!(existing instanceof kind) || labels(existing) !== [...(config.labelNames ?? [])].sort().join()) {
      throw new Error(`metric ${config.name} is already registered with another type or other labels`);
    }
    return existing;
  }
}
