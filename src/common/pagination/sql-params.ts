/** Collects positional parameters for one SQL statement: `p.add(v)` returns its `$n` placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(initial: unknown[] = []) {
    this.values.push(...initial);
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  /** Forgets the values added after the first `length` (a statement built and then not sent). */
  truncate(length: number): void {
    this.values.length = length;
  }
}

/** Anything that runs SQL: the DataSource or a transaction's EntityManager. */
export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's own signature, so both fit
  query<T = any>(sql: string, params?: unknown[]): Promise<T>;
}
