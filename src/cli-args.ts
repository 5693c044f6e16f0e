import type { ListSpec } from './common/pagination/list-spec';
import { AUDIT_LOG_LIST } from './audit/audit-logs.queries';
import { MEMBER_LIST } from './members/members.queries';

/** A mistake in the command line: exit code 2 and the usage hint. */
export class UsageError extends Error {}

export function need(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new UsageError(`missing --${name}`);
  return v;
}

export /** `a,b, c` -> ['a', 'b', 'c']. */
function list(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const LIST_PARAMS = ['per_page', 'paginate', 'cursor', 'offset', 'order_by', 'search', 'count'];

/** The commands that read an API list, with that list's spec (its filters are flags too). */
export const LIST_SPECS: Record<string, ListSpec | undefined> = {
  'audit list': AUDIT_LOG_LIST,
  'member list': MEMBER_LIST,
};

/** `--event-name x` -> `event_name=x`: the API list's parameters, validated by the same parser. */
export function listQuery(command: string, flags: Record<string, string>): Record<string, string> {
  const allowed = new Set([...LIST_PARAMS, ...(LIST_SPECS[command]?.filters ?? []).map((f) => f.name)]);
  const query: Record<string, string> = {};
  for (const [flag, value] of Object.entries(flags)) {
    const name = flag.replace(/-/g, '_');
    if (!allowed.has(name)) throw new UsageError(`unknown flag --${flag} for ${command}`);
    query[name] = value;
  }
  return query;
}
