// List query parsing (src/common/pagination/list-query.ts): paging, orderings, typed filters, errors naming the field.
import { ProblemException } from '../../src/common/errors/problem.exception';
import { encodeCursor } from '../../src/common/pagination/cursor';
import { OFFSET_MAX, parseListQuery, PER_PAGE_DEFAULT, PER_PAGE_MAX } from '../../src/common/pagination/list-query';
import { ListSpec } from '../../src/common/pagination/list-spec';

const SPEC: ListSpec = {
  filters: [
    { name: 'state_id', type: 'uuid', ops: ['eq', 'in', 'isnull'], column: 'w.state_id' },
    { name: 'priority', type: 'enum', values: ['high', 'low'], ops: ['eq', 'in'], column: 'w.priority' },
    { name: 'sequence_id', type: 'int', ops: ['eq', 'gte', 'lte'], column: 'w.sequence_id' },
    { name: 'created_at', type: 'datetime', ops: ['gte', 'lte'], column: 'w.created_at' },
  ],
  search: ['w.name'],
  orderings: {
    created_at: { expr: 'w.created_at', cursor: true, cast: 'timestamptz' },
    sort_order: { expr: 'w.sort_order', cursor: false },
  },
  defaultOrder: 'created_at',
  idExpr: 'w.id',
};
const ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';

/** The field errors of the 400 a parse throws (fails when it does not throw). */
function fieldErrors(q: Record<string, string>): Array<{ field: string; message: string }> {
  try {
    parseListQuery(q, SPEC);
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemException);
    return (e as ProblemException).errors ?? [{ field: '', message: (e as ProblemException).detail }];
  }
  throw new Error('expected a 400');
}

describe('parseListQuery', () => {
  it('defaults: first page of the default ordering, counted, no filters', () => {
    const q = parseListQuery({}, SPEC);
    expect(q).toMatchObject({ perPage: PER_PAGE_DEFAULT, offset: 0, count: true, mode: 'offset', cursor: null });
    expect([q.orderKey, q.desc, q.filters, q.search]).toEqual(['created_at', false, [], null]);
  });

  it('clamps per_page to the maximum and refuses a non-positive one', () => {
    expect(parseListQuery({ per_page: '100000' }, SPEC).perPage).toBe(PER_PAGE_MAX);
    expect(fieldErrors({ per_page: '0' }).map((e) => e.field)).toEqual(['per_page']);
    expect(fieldErrors({ per_page: 'ten' }).map((e) => e.field)).toEqual(['per_page']);
  });

  it('accepts offsets up to OFFSET_MAX and sends deeper ones to cursors', () => {
    expect(parseListQuery({ offset: String(OFFSET_MAX) }, SPEC).offset).toBe(OFFSET_MAX);
    expect(fieldErrors({ offset: String(OFFSET_MAX + 1) })[0].message).toMatch(/paginate=cursor/);
  });

  it('reads -order as descending and falls back to the default on an unknown ordering', () => {
    expect(parseListQuery({ order_by: '-sort_order' }, SPEC)).toMatchObject({ orderKey: 'sort_order', desc: true });
    expect(parseListQuery({ order_by: 'nope' }, SPEC)).toMatchObject({ orderKey: 'created_at', desc: false });
  });

  it('parses each filter by its type and operator; uuids are lower-cased', () => {
    const q = parseListQuery(
      { state_id__in: `${ID.toUpperCase()}, ${ID}`, priority: 'high', sequence_id__gte: '7', state_id__isnull: 'TRUE' },
      SPEC,
    );
    const byField = Object.fromEntries(q.filters.map((f) => [`${f.def.name}:${f.op}`, f.value]));
    expect(byField).toEqual({
      'state_id:in': [ID, ID],
      'state_id:isnull': true,
      'priority:eq': 'high',
      'sequence_id:gte': 7,
    });
  });

  it('keeps datetimes to microseconds without rounding', () => {
    const q = parseListQuery({ created_at__gte: '2026-01-02T03:04:05.7633946Z' }, SPEC);
    expect(q.filters[0].value).toBe('2026-01-02T03:04:05.763394Z');
  });

  it('refuses every bad value at once, each naming its parameter', () => {
    const errors = fieldErrors({ state_id: 'x', priority: 'mid', sequence_id: '1.5', state_id__in: `${ID},,${ID}` });
    expect(errors.map((e) => e.field).sort()).toEqual(['priority', 'sequence_id', 'state_id', 'state_id__in']);
    expect(errors.find((e) => e.field === 'state_id__in')!.message).toMatch(/empty element/);
  });

  it('count=false and count=0 skip the count; search is trimmed and blank is none', () => {
    expect(parseListQuery({ count: 'false' }, SPEC).count).toBe(false);
    expect(parseListQuery({ count: '0' }, SPEC).count).toBe(false);
    expect(parseListQuery({ search: '  bug ' }, SPEC).search).toBe('bug');
    expect(parseListQuery({ search: '   ' }, SPEC).search).toBeNull();
  });

  it('cursor mode needs a cursor-eligible ordering and a cursor made for the same order_by', () => {
    expect(() => parseListQuery({ paginate: 'cursor', order_by: 'sort_order' }, SPEC)).toThrow(
      /cannot anchor a cursor/,
    );
    const cursor = encodeCursor({ order: '-created_at', value: '2026-01-01T00:00:00Z', id: ID });
    expect(parseListQuery({ cursor, order_by: '-created_at' }, SPEC)).toMatchObject({
      mode: 'cursor',
      offset: 0,
      cursor: { order: '-created_at', id: ID },
    });
    expect(() => parseListQuery({ cursor, order_by: 'created_at' }, SPEC)).toThrow(/made for order_by=-created_at/);
  });
});
