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
});
