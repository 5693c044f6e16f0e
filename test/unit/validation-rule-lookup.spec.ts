import { getMetadataStorage, IsInt, IsString, MaxLength, validateSync } from 'class-validator';
import { memoizeRuleLookup } from '../../src/common/http/validation';

class Base {
  @IsString()
  name!: unknown;
}

class Child extends Base {
  @IsInt()
  count!: unknown;
}

const failed = (o: object) => validateSync(o).map((e) => `${e.property}:${Object.keys(e.constraints ?? {}).join(',')}`);

describe('memoizeRuleLookup (class-validator rule lookups kept per class)', () => {
  beforeAll(() => memoizeRuleLookup());

  it('answers a repeated lookup with the same rules, inherited ones included', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'name']);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(Object.keys(storage.groupByPropertyName(first)).sort()).toEqual(['count', 'name']);
    expect(failed(Object.assign(new Child(), { name: 1, count: 'x' })).sort()).toEqual([
      'count:isInt',
      'name:isString',
    ]);
  });

  it('a rule added later (a decorator, a derived class) is seen by the next lookup, inherited ones too', () => {
    const child = Object.assign(new Child(), { name: 'a'.repeat(20), count: 1 });
    expect(failed(child)).toEqual([]);
    MaxLength(10)(Base.prototype, 'name');
    expect(failed(child)).toEqual(['name:maxLength']);
  });

  it('installing it twice changes nothing', () => {
    const storage = getMetadataStorage();
    const lookup = storage.getTargetValidationMetadatas;
    memoizeRuleLookup();
    expect(storage.getTargetValidationMetadatas).toBe(lookup);
  });
});
