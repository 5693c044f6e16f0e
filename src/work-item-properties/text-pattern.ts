import safeRegex from 'safe-regex2';
import { Context, createContext, Script } from 'node:vm';

/**
 * TEXT `validation_rules.pattern`: a regular expression written by a project admin and run against values
 * sent by anyone who edits work items. V8's backtracking engine can take exponential time on patterns
 * such as ^(a+)+$, blocking the process for every tenant, so:
 * - a definition is refused when safe-regex2 (fastify's star-height check, the one find-my-way uses)
 *   finds nested quantifiers;
 * - every test runs in a vm script with a time budget, which stops what the static check misses
 *   ((a|a)*$ and the like) and patterns stored before the check existed.
 */
export const PATTERN_BUDGET_MS = 50;

/**
 * The sandbox is made by the first test, not at load: a vm context is a second V8 context with builtins of its own
 * (memory held for the life of the process), and most instances never see a TEXT pattern (peak RSS, issue 27).
 */
let sandbox: Context | undefined;
let test: Script | undefined;

/** Why `pattern` cannot be a TEXT pattern, or null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'Is not a valid regular expression.';
  }
  if (!safeRegex(pattern))
    return 'Nests quantifiers (as in (a+)+), which can take exponential time; rewrite it without a repeated group of repeats.';
  return null;
}

/**
 * Wall-clock budgets of successive attempts. The vm's timeout is wall-clock time, so on a loaded machine a test
 * descheduled for 50 ms was stopped though it had barely run, and a valid value was refused (seen: 'Hello' against
 * ^[A-Z] under a load average of 13). An attempt stopped before its thread used PATTERN_BUDGET_MS of CPU is
 * therefore run again with a longer wall budget; one that used the budget is a slow pattern and is refused at once.
 * The CPU a test may take stays bounded by about the budget per attempt.
 */
const WALL_BUDGETS_MS = [PATTERN_BUDGET_MS, 4 * PATTERN_BUDGET_MS, 20 * PATTERN_BUDGET_MS];

const threadCpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

/** true / false, or 'timeout' when the test used its CPU budget (the value is then refused). */
export function matchesPattern(pattern: string, value: string): boolean | 'timeout' {
  sandbox ??= createContext({ re: /(?:)/u, s: '' });
  test ??= new Script('re.test(s)');
  sandbox.re = new RegExp(pattern, 'u');
  sandbox.s = value;
  try {
    for (const wall of WALL_BUDGETS_MS) {
      const cpuBefore = threadCpuMs();
      try {
        return test.runInContext(sandbox, { timeout: wall }) === true;
      } catch (e) {
        if ((e as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw e;
        if (threadCpuMs() - cpuBefore >= PATTERN_BUDGET_MS) return 'timeout';
      }
    }
    return 'timeout';
  } finally {
    sandbox.s = '';
  }
}
