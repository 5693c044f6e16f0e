// Names (src/common/names/names.ts): trimmed, blank is 400 naming the field, a taken name is a 409 sentence.
import { ProblemException } from '../../src/common/errors/problem.exception';
import { assertNameFree, cleanName, nameConflict } from '../../src/common/names/names';

describe('names', () => {
  it('trims, and refuses a blank name naming the field', () => {
    expect(cleanName('  Sprint 1 ')).toBe('Sprint 1');
    expect(() => cleanName('   ', 'display_name')).toThrow(ProblemException);
    try {
      cleanName(' ', 'display_name');
    } catch (e) {
      expect((e as ProblemException).errors?.[0].field).toBe('display_name');
    }
  });

  it('words a conflict with the right article and scope', () => {
    expect(nameConflict('module', 'x').detail).toBe('A module named "x" already exists in this project.');
    expect(nameConflict('estimate', 'y', '').detail).toBe('An estimate named "y" already exists.');
  });

  it('is 409 only when the lookup says the name is taken', async () => {
    await expect(assertNameFree(Promise.resolve(false), 'label', 'a')).resolves.toBeUndefined();
    await expect(assertNameFree(Promise.resolve(true), 'label', 'a')).rejects.toMatchObject({ status: 409 });
  });
});
