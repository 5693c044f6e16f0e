import { ProblemException } from '../errors/problem.exception';

/** True when a name is empty once trimmed (`"   "`). */
export function isBlank(raw: string): boolean {
  return !raw.trim();
}

/**
 * The one rule for names (states, labels, cycles, modules, estimates, workflows, types, properties' display_name,
 * options, contexts): trimmed, and a blank one is 400 naming the field.
 */
export function cleanName(raw: string, field = 'name', detail = `${field} should not be empty`): string {
  const n = raw.trim();
  if (!n) throw ProblemException.validation(field, detail);
  return n;
}

/**
 * 409 for a name its siblings already use: `A module named "x" already exists in this project.` (an empty
 * `scope` ends the sentence after "exists").
 */
export function nameConflict(resource: string, name: string, scope = 'in this project'): ProblemException {
  const article = /^[aeiou]/i.test(resource) ? 'An' : 'A';
  return ProblemException.conflict(`${article} ${resource} named "${name}" already exists${scope ? ` ${scope}` : ''}.`);
}

/**
 * The name-conflict check of a create or rename: `taken` is the repository's lookup (run under the lock that
 * serialises the siblings' writes); a taken name is nameConflict's 409.
 */
export async function assertNameFree(
  taken: Promise<boolean>,
  resource: string,
  name: string,
  scope?: string,
): Promise<void> {
  if (await taken) throw nameConflict(resource, name, scope);
}
