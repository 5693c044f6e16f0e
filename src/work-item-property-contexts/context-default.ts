import { ValueConfig } from '../work-item-properties/property-rules';
import { PropertyRow } from '../work-item-properties/work-item-properties.mapper';

/**
 * What a context's `default_value` is checked against: the property's type, relation type and
 * validation_rules with the context's own multiplicity and offered options. Used by context writes
 * and by the mirror of a property-level `default_value` into the seeded context.
 */
export function contextValueConfig(
  property: Pick<PropertyRow, 'property_type' | 'relation_type' | 'validation_rules'>,
  isMulti: boolean,
  offeredOptionIds: Iterable<string>,
): ValueConfig {
  return {
    property_type: property.property_type,
    relation_type: property.relation_type,
    is_multi: isMulti,
    validation_rules: property.validation_rules ?? {},
    optionIds: new Set(offeredOptionIds),
  };
}
