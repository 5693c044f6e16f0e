import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '../common/errors/problem.exception';
import { ListEnvelope } from '../common/pagination/run-list';
import { ListQuery, parseListQuery, PER_PAGE_MAX, RawQuery } from '../common/pagination/list-query';
import { ListSpec } from '../common/pagination/list-spec';

/** v1's page size when a request names none (Plane's v1 default). */
export const V1_PER_PAGE_DEFAULT = 100;

/** A v1 page: the v2 list query it runs as, and where it is in v1's page numbering. */
export interface V1Page {
  query: ListQuery;
  page: number;
}

/** v1's list envelope (gap-reference 8), over the v2 service's offset page. */
export interface V1List<T> {
  grouped_by: null;
  sub_grouped_by: null;
  total_count: number;
  next_cursor: string;
  prev_cursor: string;
  next_page_results: boolean;
  prev_page_results: boolean;
  count: number;
  total_pages: number;
  total_results: number;
  extra_stats: null;
  results: T[];
}

const CURSOR_RE = /^(\d+):(\d+):([01])$/;

function scalar(q: RawQuery, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/**
 * v1's `cursor` is `<per_page>:<page>:<is_prev>` (`100:1:0` is the second page of 100): it runs as a v2 offset
 * page (offset = page x per_page), so v1 and v2 read the same ordering and filters. A cursor's own page size
 * wins over `per_page`, as in v1. Filters and order_by go to the v2 parser unchanged (v2 names).
 */
export function v1ListQuery(raw: RawQuery, spec: ListSpec, renames: Record<string, string> = {}): V1Page {
  const q: RawQuery = {};
  for (const [k, v] of Object.entries(raw)) {
    if (['cursor', 'paginate', 'offset', 'per_page', 'count'].includes(k)) continue;
    q[renames[k] ?? k] = v;
  }
  let perPage = scalar(raw, 'per_page') ?? String(V1_PER_PAGE_DEFAULT);
  let page = 0;
  const cursor = scalar(raw, 'cursor');
  if (cursor !== undefined) {
    const m = CURSOR_RE.exec(cursor);
    if (!m || Number(m[1]) < 1) {
      throw ProblemException.validation(
        'cursor',
        'Use next_cursor or prev_cursor as returned (per_page:page:is_prev).',
      );
    }
    perPage = m[1];
    page = Number(m[2]);
  }
  if (/^\d+$/.test(perPage) && Number(perPage) > PER_PAGE_MAX) perPage = String(PER_PAGE_MAX);
  q.per_page = perPage;
  q.offset = String(page * Number(/^\d+$/.test(perPage) ? perPage : 0));
  return { query: parseListQuery(q, spec), page };
}

/** The v1 page of the route's list query (`spec`: the v2 list it runs as). */
export const V1ListParams = createParamDecorator((spec: ListSpec, host: ExecutionContext): V1Page => {
  const req = host.switchToHttp().getRequest<FastifyRequest>();
  return v1ListQuery((req.query ?? {}) as RawQuery, spec);
});

/** Wraps a v2 offset page in v1's envelope, each row mapped by `map`. */
export function v1List<T, U>(env: ListEnvelope<T>, page: V1Page, map: (row: T) => U): V1List<U> {
  const perPage = page.query.perPage;
  const total = 'total_count' in env && typeof env.total_count === 'number' ? env.total_count : env.data.length;
  const next = 'next' in env && env.next !== null;
  return {
    grouped_by: null,
    sub_grouped_by: null,
    total_count: total,
    next_cursor: `${perPage}:${page.page + 1}:0`,
    prev_cursor: `${perPage}:${Math.max(page.page - 1, 0)}:1`,
    next_page_results: next,
    prev_page_results: page.page > 0,
    count: env.data.length,
    total_pages: Math.ceil(total / perPage),
    total_results: total,
    extra_stats: null,
    results: env.data.map(map),
  };
}

/**
 * Every row of a v2 list, page after page (v1 answers some lists whole, as an array: members, estimate points,
 * workflows). Offset pages stop at v2's offset cap (10,000 rows).
 */
export async function everyRow<T>(spec: ListSpec, page: (q: ListQuery) => Promise<ListEnvelope<T>>): Promise<T[]> {
  const all: T[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const env: ListEnvelope<T> = await page({
      ...parseListQuery({ per_page: String(PER_PAGE_MAX), count: 'false' }, spec),
      offset,
    });
    all.push(...env.data);
    offset = 'next' in env ? env.next : null;
  }
  return all;
}
