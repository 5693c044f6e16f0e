/**
 * Rows of an UPDATE/DELETE ... RETURNING run through `query()`: TypeORM's PostgreSQL driver answers
 * those with `[rows, affectedCount]` (INSERT and SELECT with plain rows).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows of raw SQL
export function writtenRows<T = Record<string, any>>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number')
    return result[0] as T[];
  return result as T[];
}
