import { Client } from 'pg';

/**
 * Every parameterized statement the service sends runs as a named prepared statement: a pooled
 * connection parses it once and, after a few executions, reuses its plan. Unnamed statements are parsed,
 * analysed and planned on every call, which was about half of PostgreSQL's CPU per work item create
 * (nine short statements against a table with eighteen indexes).
 *
 * Names are given per distinct SQL text, in the order texts are first seen, to at most MAX_NAMED texts
 * per process; later texts run unnamed. Statement texts are built from code (values always travel as
 * parameters), so their number is bounded by the code paths; the cap bounds server memory regardless.
 * Texts without parameters (BEGIN, COMMIT, DDL, multi-statement scripts) are never named.
 */
const MAX_NAMED = 400;
const names = new Map<string, string>();

/**
 * A statement whose text begins with this comment is never named: PostgreSQL plans it for its values on every call.
 * For a statement whose best plan depends on a value the cached generic plan would not see (ListSource.planPerRequest).
 */
export const PLANNED_PER_REQUEST = '/* planned per request */ ';

export function statementName(text: string): string | undefined {
  if (text.startsWith(PLANNED_PER_REQUEST)) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `wt_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** The pg Client of every pool (pg-pool's `Client` option): names statements as above. */
export class PreparingClient extends Client {
  // pg's query() has a dozen overloads; this forwards all of them and only rewrites (text, values[]).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(config);
      if (name !== undefined) return super.query({ name, text: config, values }, callback);
    }
    return super.query(config, values, callback);
  }
}
