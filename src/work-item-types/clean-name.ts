import { ProblemException } from '../common/errors/problem.exception';

/** True when a name is empty once trimmed (`"   "`). */
export function isBlank(raw: string): boolean {
  return !raw.trim();
}

/**
 * The one rule for names of the catalogue (types, properties' display_name, options, contexts):
 * trimmed, and a blank one is 400 naming the field.
 */
export function cleanName(raw: string, field = 'name'): string {
  const n = raw.trim();
  if (!n) throw ProblemException.validation(field, `${field} should not be empty`);
  return n;
}
