import { Client } from 'pg';

/** Statements the service's own background work sends (pg-boss polls, credential last-used stamps). */
const BACKGROUND = /pgboss|api_keys k SET last_used_at/;

/**
 * Records the text of every statement sent through node-postgres (every pool client and the DataSource) until
 * `stop`, in order, background work left out unless `withBackground`.
 */
export function recordStatements(withBackground = false): { stop: () => string[] } {
  const seen: string[] = [];
  const proto = Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: Client, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : (q as { text?: string } | undefined)?.text;
    if (text && (withBackground || !BACKGROUND.test(text))) seen.push(text);
    return original.apply(this, args);
  };
  return {
    stop: () => {
      proto.query = original;
      return seen;
    },
  };
}

/** The statements sent while `run` runs (background work left out). */
export async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const recorder = recordStatements();
  try {
    await run();
  } catch (err) {
    recorder.stop();
    throw err;
  }
  return recorder.stop();
}
