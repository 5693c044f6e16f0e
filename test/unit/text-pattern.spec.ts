// TEXT property patterns (src/work-item-properties/text-pattern.ts): refused when they nest quantifiers, and every
// test runs under a time budget.
import { matchesPattern, patternProblem } from '../../src/work-item-properties/text-pattern';

describe('TEXT patterns', () => {
  it('accepts an ordinary pattern and tests values with it', () => {
    expect(patternProblem('^[A-Z]{2,4}-\\d+$')).toBeNull();
    expect(matchesPattern('^[A-Z]{2,4}-\\d+$', 'PROJ-12')).toBe(true);
    expect(matchesPattern('^[A-Z]{2,4}-\\d+$', 'proj-12')).toBe(false);
  });

  it('refuses an invalid expression and one that nests quantifiers', () => {
    expect(patternProblem('(')).toMatch(/not a valid regular expression/);
    expect(patternProblem('^(a+)+$')).toMatch(/Nests quantifiers/);
  });

  it('stops a catastrophic test at its budget instead of blocking the process', () => {
    const started = Date.now();
    expect(matchesPattern('^(a|a)*$', 'a'.repeat(40) + 'b')).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses a test that used its CPU budget after one attempt, without trying again', () => {
    // The thread's CPU clock advancing by the budget (60 ms, in µs) during the attempt: the pattern itself was slow.
    const cpu = jest
      .spyOn(process, 'threadCpuUsage')
      .mockReturnValueOnce({ user: 0, system: 0 })
      .mockReturnValueOnce({ user: 60_000, system: 0 });
    try {
      expect(matchesPattern('^(a|a)*$', 'a'.repeat(40) + 'b')).toBe('timeout');
      expect(cpu).toHaveBeenCalledTimes(2); // before and after the one attempt
    } finally {
      cpu.mockRestore();
    }
  });

  it('tries again, with a longer wall budget, a test stopped before it used its CPU (a descheduled thread)', () => {
    // The thread's CPU clock standing still is what a loaded machine looks like to the attempt that was stopped.
    const cpu = jest.spyOn(process, 'threadCpuUsage').mockReturnValue({ user: 0, system: 0 });
    try {
      expect(matchesPattern('^(a|a)*$', 'a'.repeat(40) + 'b')).toBe('timeout');
      expect(cpu).toHaveBeenCalledTimes(6); // three attempts: 50, 200 and 1,000 ms of wall time
    } finally {
      cpu.mockRestore();
    }
  });
});
