// Custom property rules (src/work-item-properties/property-rules.ts): definitions and the coercion of values.
import { checkDefinition, coerceValue, ValueConfig, ValueError } from '../../src/work-item-properties/property-rules';

const OPTION = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const cfg = (over: Partial<ValueConfig>): ValueConfig => ({
  property_type: 'TEXT',
  relation_type: null,
  is_multi: false,
  validation_rules: {},
  optionIds: new Set([OPTION]),
  ...over,
});
const refs = () => ({ issues: [] as string[], users: [] as string[] });
const refused = (c: ValueConfig, raw: unknown) => {
  try {
    coerceValue(c, raw, refs());
  } catch (e) {
    expect(e).toBeInstanceOf(ValueError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
};

describe('property definitions', () => {
  it('accepts a consistent definition', () => {
    expect(
      checkDefinition({
        property_type: 'OPTION',
        relation_type: null,
        is_multi: true,
        is_required: false,
        validation_rules: { max_items: 3 },
      }),
    ).toEqual([]);
  });

  it('names each inconsistency: RELATION without relation_type, is_multi on TEXT, required FORMULA, foreign rule', () => {
    const fields = (d: Parameters<typeof checkDefinition>[0]) => checkDefinition(d).map((e) => e.field);
    const base = { relation_type: null, is_multi: false, is_required: false, validation_rules: {} };
    expect(fields({ ...base, property_type: 'RELATION' })).toEqual(['relation_type']);
    expect(fields({ ...base, property_type: 'TEXT', is_multi: true })).toEqual(['is_multi']);
    expect(fields({ ...base, property_type: 'FORMULA', is_required: true })).toEqual(['is_required']);
    expect(fields({ ...base, property_type: 'TEXT', validation_rules: { min: 1 } })).toEqual(['validation_rules.min']);
    expect(fields({ ...base, property_type: 'TEXT', validation_rules: { pattern: '^(a+)+$' } })).toEqual([
      'validation_rules.pattern',
    ]);
  });
});

describe('property values', () => {
  it('treats null, "" and [] as no value', () => {
    for (const raw of [null, '', []]) expect(coerceValue(cfg({}), raw, refs())).toBeNull();
  });

  it('checks TEXT length and pattern', () => {
    const c = cfg({ validation_rules: { min_length: 2, pattern: '^[a-z]+$' } });
    expect(coerceValue(c, 'ok', refs())).toBe('ok');
    expect(refused(c, 'a')).toMatch(/2/);
    expect(refused(c, 'AB')).toMatch(/Does not match the pattern/);
    expect(refused(c, 5)).toBe('Must be a string.');
  });

  it('reads DECIMAL from numbers and numeric strings within its rules', () => {
    const c = cfg({ property_type: 'DECIMAL', validation_rules: { min: 0, max: 10, decimal_places: 1 } });
    expect(coerceValue(c, ' 2.5 ', refs())).toBe(2.5);
    expect(refused(c, 11)).toBe('Must be at most 10.');
    expect(refused(c, 1.25)).toBe('Use at most 1 decimal places.');
    expect(refused(c, '1e999')).toBe('Must be a finite number.');
    expect(refused(c, 'two')).toBe('Must be a number.');
  });

  it('reads BOOLEAN from booleans and their words only', () => {
    const c = cfg({ property_type: 'BOOLEAN' });
    expect([coerceValue(c, true, refs()), coerceValue(c, 'false', refs())]).toEqual([true, false]);
    expect(refused(c, 'yes')).toBe('Must be a boolean.');
  });

  it('keeps OPTION values to the options offered, lower-cased, de-duplicated when multi, within the item count', () => {
    const single = cfg({ property_type: 'OPTION' });
    expect(coerceValue(single, [OPTION.toUpperCase()], refs())).toBe(OPTION);
    expect(refused(single, [OPTION, OPTION])).toMatch(/single value/);
    expect(refused(single, '00000000-0000-4000-8000-000000000000')).toMatch(/not an option offered/);
    const multi = cfg({ property_type: 'OPTION', is_multi: true, validation_rules: { min_items: 2 } });
    expect(refused(multi, [OPTION, OPTION])).toBe('Give at least 2 values.');
  });

  it('refuses writing a FORMULA', () => {
    expect(refused(cfg({ property_type: 'FORMULA' }), 1)).toMatch(/computed by the service/);
  });
});
