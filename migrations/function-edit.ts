import { QueryRunner } from 'typeorm';

/**
 * Rewrites one function of the public schema: its current text (pg_get_functiondef, which keeps the settings it
 * carries, such as `SET enable_nestloop`) with every `from` replaced by `to`. Fails when `from` is missing, so a
 * migration never silently skips a function a later one already rewrote.
 */
export async function editFunction(q: QueryRunner, fn: string, from: string, to: string): Promise<void> {
  const [row] = await q.query(
    `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public' WHERE p.proname = $1`,
    [fn],
  );
  if (!row?.def.includes(from)) throw new Error(`${fn}: expected "${from}" in its definition`);
  await q.query(row.def.split(from).join(to));
}
