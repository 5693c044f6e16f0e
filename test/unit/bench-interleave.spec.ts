// The benchmark's noise rules (bench/interleave.js, issue 27): ratios per round, medians, the 15% noise flag.
const { summarize, combine, table } = jest.requireActual('../../bench/interleave');
const { selectRows, DEFAULT_ROWS } = jest.requireActual('../../bench/scenarios');

const slices = (...rps: number[]) => rps.map((r) => ({ rps: r, p50: 10, p99: 20, errors: 0 }));
const rows = [{ name: 'ceiling' }, { name: 'list' }];

describe('interleaved benchmark summary', () => {
  it('takes each ratio against the ceiling of the same round and reports their median and range', () => {
    const s = summarize(
      rows,
      new Map([
        ['ceiling', slices(100, 200, 100)],
        ['list', slices(80, 140, 90)],
      ]),
      'ceiling',
    );
    const list = s.rows[1];
    // Per round: 80%, 70%, 90%. Against the median ceiling (100) the second round would read 140%.
    expect([list.ratio, list.low, list.high]).toEqual([0.8, 0.7, 0.9]);
    expect(list.rps).toBe(90);
    expect(s.noisy).toBe(true);
    expect(table(s, 'run')).toContain('NOISY');
  });

  it('calls a run quiet when the ceiling slices differ by at most 15%, noisy above', () => {
    const run = (ceiling: number[]) =>
      summarize(
        rows,
        new Map([
          ['ceiling', slices(...ceiling)],
          ['list', slices(...ceiling)],
        ]),
        'ceiling',
      );
    expect(run([100, 107, 115]).noisy).toBe(false);
    expect(run([100, 110, 120]).noisy).toBe(true);
    expect(table(run([100, 107, 115]), 'run')).toContain('quiet');
  });

  it('--repeat: the median of the runs, noisy when any run was', () => {
    const one = (list: number[], ceiling = [100, 100, 100]) =>
      summarize(
        rows,
        new Map([
          ['ceiling', slices(...ceiling)],
          ['list', slices(...list)],
        ]),
        'ceiling',
      );
    const c = combine([one([50, 50, 50]), one([60, 60, 60]), one([90, 90, 90], [100, 150, 100])]);
    expect(c.rows[1].ratio).toBe(0.6);
    expect([c.rows[1].low, c.rows[1].high]).toEqual([0.5, 0.9]);
    expect(c.noisy).toBe(true);
  });
});

describe('benchmark rows', () => {
  const all = ['ceiling', ...DEFAULT_ROWS, 'expand', 'per200', 'mixed'].map((id) => ({ id }));
  it('runs the ceiling and the default rows, all rows on request, and refuses an unknown one', () => {
    expect(selectRows(all).map((r: { id: string }) => r.id)).toEqual(['ceiling', ...DEFAULT_ROWS]);
    expect(selectRows(all, 'all')).toHaveLength(all.length);
    expect(selectRows(all, 'mixed').map((r: { id: string }) => r.id)).toEqual(['ceiling', 'mixed']);
    expect(() => selectRows(all, 'lists')).toThrow(/unknown lists/);
  });
});
