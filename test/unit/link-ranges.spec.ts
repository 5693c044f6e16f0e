import { rangeValues } from '../../src/common/pagination/run-list';
import { SqlParams } from '../../src/common/pagination/sql-params';
import { LinkCopied, linkRanges, ranksOf } from '../../src/work-items/work-items.repository';
import { PRIORITIES } from '../../src/work-items/work-item.entity';

/** A parsed filter of the list (ListQuery['filters'][number]) with the fields these helpers read. */
const filter = (name: string, op: 'eq' | 'in', value: string | string[]) =>
  ({ def: { name }, op, value }) as unknown as NonNullable<LinkCopied['priority']>;
const LABELS = { table: 'work_item_labels', key: 'label_id', counts: 'work_item_label_counts' };

describe('link-driven ranges (a relation filter with a priority, read off the link rows)', () => {
  it('ranks a priority filter by PRIORITIES, each rank once', () => {
    expect(ranksOf(filter('priority', 'eq', 'high'), PRIORITIES)).toEqual([1]);
    expect(ranksOf(filter('priority', 'in', ['low', 'urgent', 'low']), PRIORITIES)).toEqual([3, 0]);
  });

  it('reads one range: one id and at most one priority (then a condition of the walk, not a range)', () => {
    const p = new SqlParams(['ws', 'project']);
    expect(linkRanges(LABELS, ['a'], {}, p)).toBeUndefined();
    expect(linkRanges(LABELS, ['a'], { priority: filter('priority', 'in', ['high', 'high']) }, p)).toBeUndefined();
    expect(p.values).toEqual(['ws', 'project']);
  });

  it('reads one range per id, per priority, or per (id, priority) pair', () => {
    const p = new SqlParams(['ws', 'project']);
    const byKey = linkRanges(LABELS, ['a', 'b'], { priority: filter('priority', 'eq', 'low') }, p)!;
    expect(byKey).toMatchObject({ keyed: true, prioritized: false });
    expect(rangeValues(byKey.walk).conds).toEqual(['x.label_id = "__pv"."v"']);
    expect(p.values).toEqual(['ws', 'project', ['a', 'b']]);

    const q = new SqlParams(['ws', 'project']);
    const byPriority = linkRanges(LABELS, ['a'], { priority: filter('priority', 'in', ['high', 'low']) }, q)!;
    expect(byPriority).toMatchObject({ keyed: false, prioritized: true });
    expect(rangeValues(byPriority.walk)).toEqual({
      from: '(SELECT DISTINCT "v" FROM unnest($3::smallint[]) AS "__u"("v")) "__pv"',
      conds: ['x.item_priority_rank = "__pv"."v"'],
    });
    expect(q.values).toEqual(['ws', 'project', [1, 3]]);

    const r = new SqlParams(['ws', 'project']);
    const pairs = linkRanges(LABELS, ['a', 'b'], { priority: filter('priority', 'in', ['urgent', 'none']) }, r)!;
    expect(pairs).toMatchObject({ keyed: true, prioritized: true });
    expect(rangeValues(pairs.walk)).toEqual({
      from: '(SELECT DISTINCT "v", "w" FROM unnest($3::uuid[]) AS "__u"("v") CROSS JOIN unnest($4::smallint[]) AS "__b"("w")) "__pv"',
      conds: ['x.label_id = "__pv"."v"', 'x.item_priority_rank = "__pv"."w"'],
    });
    expect(r.values).toEqual(['ws', 'project', ['a', 'b'], [0, 4]]);
  });
});
