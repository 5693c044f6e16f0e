import { Client } from 'pg';

/** Statements the service's own background work sends (pg-boss polls, credential last-used stamps). */
const BACKGROUND = /pgboss|api_keys k SET last_used_at/;

/** Calls `seen` with every statement's text and values sent through node-postgres until the returned undo is called. */
function watchQueries(seen: (text: string, values: unknown[]) => void): () => void {
  const proto = Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: Client, ...args: unknown[]) {
    const q = args[0] as { text?: string; values?: unknown[] } | string | undefined;
    const text = typeof q === 'string' ? q : q?.text;
    const values = typeof q === 'string' ? (args[1] as unknown[] | undefined) : q?.values;
    if (text) seen(text, values ?? []);
    return original.apply(this, args);
  };
  return () => {
    proto.query = original;
  };
}

/**
 * Records the text of every statement sent through node-postgres (every pool client and the DataSource) until
 * `stop`, in order, background work left out unless `withBackground`.
 */
export function recordStatements(withBackground = false): { stop: () => string[] } {
  const seen: string[] = [];
  const undo = watchQueries((text) => {
    if (withBackground || !BACKGROUND.test(text)) seen.push(text);
  });
  return {
    stop: () => {
      undo();
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

/** The statements whose text `wanted` accepts, with their values, in the order `run` sent them. */
export async function statementsWithValuesOf(
  run: () => Promise<unknown>,
  wanted: (text: string) => boolean,
): Promise<Array<{ text: string; values: unknown[] }>> {
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const undo = watchQueries((text, values) => {
    if (wanted(text)) sent.push({ text, values });
  });
  try {
    await run();
  } finally {
    undo();
  }
  return sent;
}
