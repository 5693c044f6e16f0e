// The benchmark's noise rules (bench/interleave.js, issue 27): ratios per round, medians, the 15% noise flag.
const { summarize, combine, table, undisturbedSlice } = jest.requireActual('../../bench/interleave');
const { selectRows, DEFAULT_ROWS } = jest.requireActual('../../bench/scenarios');
const { foreignCpuMeter, servesBench, usedBetween } = jest.requireActual('../../bench/foreign-cpu');

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

describe('foreign CPU (other processes during a slice)', () => {
  const quiet = (...rps: number[]) => slices(...rps).map((x) => ({ ...x, foreign: 0.01, retries: 0 }));

  it('measures a slice again while other processes took more than 5% of the CPU, at most three times more', async () => {
    const log = jest.fn();
    const measured = (foreign: number[]) => {
      const next = [...foreign];
      return jest.fn(async () => ({ rps: 100, p50: 10, p99: 20, errors: 0, foreign: next.shift() }));
    };
    const settles = measured([0.4, 0.2, 0.03]);
    expect(await undisturbedSlice(settles, 'list', log)).toMatchObject({ foreign: 0.03, retries: 2 });
    expect(settles).toHaveBeenCalledTimes(3);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('other processes used 40% of the CPU: again'));
    const never = measured([0.3, 0.3, 0.3, 0.3, 0.3]);
    expect(await undisturbedSlice(never, 'list', log)).toMatchObject({ foreign: 0.3, retries: 3 });
    expect(never).toHaveBeenCalledTimes(4);
    const quietOne = measured([0.05]);
    expect(await undisturbedSlice(quietOne, 'list', log)).toMatchObject({ retries: 0 });
  });

  it('calls a run noisy when a kept slice stayed disturbed, even with a steady ceiling', () => {
    const list = quiet(90, 90, 90);
    list[1] = { ...list[1], foreign: 0.3, retries: 3 };
    const s = summarize(
      rows,
      new Map([
        ['ceiling', quiet(100, 100, 100)],
        ['list', list],
      ]),
      'ceiling',
    );
    expect([s.spread, s.disturbed, s.retried, s.maxForeign]).toEqual([0, 1, 3, 0.3]);
    expect(s.noisy).toBe(true);
    expect(table(s, 'run')).toMatch(/NOISY: 1 slice\(s\) stayed disturbed/);
  });

  it('keeps a run quiet whose slices were measured again until undisturbed, and says how many were', () => {
    const ceiling = quiet(100, 104, 110);
    ceiling[2] = { ...ceiling[2], retries: 2 };
    const s = summarize(
      rows,
      new Map([
        ['ceiling', ceiling],
        ['list', quiet(90, 90, 90)],
      ]),
      'ceiling',
    );
    expect([s.noisy, s.retried, s.disturbed]).toEqual([false, 2, 0]);
    expect(table(s, 'run')).toContain('2 slice(s) measured again above 5%, 0 kept above it');
    expect(combine([s, s]).retried).toBe(4);
  });

  it("counts the bench database's PostgreSQL processes as the benchmark's, other databases' backends as foreign", () => {
    expect(servesBench('postgres: 15/main: postgres wt_bench 127.0.0.1(41234) idle', 'wt_bench')).toBe(true);
    expect(servesBench('postgres: 15/main: checkpointer', 'wt_bench')).toBe(true);
    expect(servesBench('postgres: 15/main: postgres wt_bench2 127.0.0.1(41234) SELECT', 'wt_bench')).toBe(false);
    expect(servesBench('postgres: postgres test [local] idle', 'wt_bench')).toBe(false);
  });

  it("takes the machine's busy time less the benchmark's as the foreign share, never below zero", () => {
    const meter = foreignCpuMeter(() => [], 'wt_bench');
    const at = (busy: number, total: number, ours: number) => ({ busy, total, ours: new Map([[1, ours]]) });
    expect(meter.foreign(at(0, 0, 0), at(300, 400, 200))).toBe(0.25);
    expect(meter.foreign(at(0, 0, 0), at(300, 400, 310))).toBe(0);
    const now = meter.snapshot();
    expect(now.total).toBeGreaterThan(0);
    expect(now.ours.get(process.pid)).toBeGreaterThan(0);
  });

  it('counts what each process used during the slice: a new one all of it, one that ended none of its past', () => {
    const before = new Map([
      [10, 500],
      [11, 9000],
    ]);
    // 11 (a pool's backend with a long past) closed; 12 started; 10 used 40 ticks.
    const after = new Map([
      [10, 540],
      [12, 25],
    ]);
    expect(usedBetween(before, after)).toBe(65);
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

describe('I/O stall (/proc/pressure/io) per slice', () => {
  const withIo = (io: Array<number | undefined>) =>
    io.map((share, i) => ({ rps: 100 + i, p50: 10, p99: 20, errors: 0, foreign: 0, ioStall: share }));

  it('reports the slice that waited on I/O longest and its row, without calling the run noisy', () => {
    const s = summarize(
      rows,
      new Map([
        ['ceiling', withIo([0.01, 0.02, 0.01])],
        ['list', withIo([0.05, 0.48, 0.1])],
      ]),
      'ceiling',
    );
    expect(s.ioStall).toEqual({ share: 0.48, row: 'list' });
    expect(s.noisy).toBe(false);
    expect(table(s, 'run')).toContain('I/O stall (/proc/pressure/io, some): at most 48% of a slice (list)');
    expect(combine([s, { ...s, ioStall: { share: 0.6, row: 'ceiling' } }]).ioStall).toEqual({
      share: 0.6,
      row: 'ceiling',
    });
  });

  it('prints no I/O line where the kernel has no pressure file', () => {
    const s = summarize(
      rows,
      new Map([
        ['ceiling', withIo([undefined, undefined, undefined])],
        ['list', withIo([undefined, undefined, undefined])],
      ]),
      'ceiling',
    );
    expect(s.ioStall).toBeUndefined();
    expect(table(s, 'run')).not.toContain('I/O stall');
  });
});
