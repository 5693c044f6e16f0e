import {
  applyDecorators,
  ArgumentMetadata,
  Injectable,
  PipeTransform,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  buildMessage,
  getMetadataStorage,
  MetadataStorage,
  NotEquals,
  ValidateBy,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import { exceedsVarchar } from '../database/columns';
import { FieldError, ProblemException } from '../errors/problem.exception';

/** Checks of a value's kind (class-validator constraint names). */
const KIND_CHECKS = new Set([
  'isDefined',
  'isNotEmpty',
  'isString',
  'isArray',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'notEquals',
]);
/** Checks of a size, which say nothing about a value of the wrong kind ("name must be shorter than 255" for a missing name). */
const SIZE_CHECKS = new Set([
  'maxLength',
  'minLength',
  'isLength',
  'arrayMaxSize',
  'arrayMinSize',
  'arrayNotEmpty',
  'max',
  'min',
]);

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) {
      const failed = Object.entries(e.constraints);
      const wrongKind = failed.some(([name]) => KIND_CHECKS.has(name));
      for (const [name, message] of failed) {
        if (wrongKind && SIZE_CHECKS.has(name)) continue;
        out.push({ field, message: message.replace(/^[\w.]+ /, `${field} `) });
      }
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

const MEMOIZED = Symbol('wt.validation.memoized');
type Lookup = MetadataStorage['getTargetValidationMetadatas'];

/**
 * class-validator looks a class's rules up on every validation, and the lookup tests the class against every
 * class that has rules (`instanceof`, for the inherited ones): a few hundred DTOs, about 2% of a work item
 * create's CPU (issue 27, docs/read-path-profile.md). Its answer changes only when rules are added (decorators
 * while modules load; @nestjs/mapped-types when it derives a class), so it is kept per class and arguments, and
 * every kept answer is dropped when a rule or schema is added; so is its grouping by property. Callers get the same
 * array (and grouping) each time; class-validator and mapped-types only read them.
 */
export function memoizeRuleLookup(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (marked[MEMOIZED]) return;
  marked[MEMOIZED] = true;
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const kept = new Map<unknown, Map<string, ReturnType<Lookup>>>();
  const addMetadata = storage.addValidationMetadata.bind(storage);
  const addSchema = storage.addValidationSchema.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    kept.clear();
    addMetadata(metadata);
  };
  storage.addValidationSchema = (schema) => {
    kept.clear();
    addSchema(schema);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}|${always}|${strictGroups}|${groups === undefined ? '' : JSON.stringify(groups)}`;
    let byArgs = kept.get(target);
    if (!byArgs) kept.set(target, (byArgs = new Map()));
    let rules = byArgs.get(key);
    if (!rules) byArgs.set(key, (rules = lookup(target, schema, always, strictGroups, groups)));
    return rules;
  };
  // The rules grouped by property, kept with the (kept) array they were grouped from.
  const group = storage.groupByPropertyName.bind(storage);
  const grouped = new WeakMap<object, ReturnType<typeof group>>();
  storage.groupByPropertyName = (rules) => {
    let byProperty = grouped.get(rules);
    if (!byProperty) grouped.set(rules, (byProperty = group(rules)));
    return byProperty;
  };
}
memoizeRuleLookup();

/**
 * Body validation for every route: unknown and read-only fields are dropped (whitelist), the rest
 * is checked against the DTO and failures become one validation_error naming each field.
 */
@Injectable()
export class BodyValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: false,
    validateCustomDecorators: false,
    exceptionFactory: (errors) => ProblemException.validationMany(flatten(errors)),
  });

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body') return value;
    const meta = metadata.metatype;
    const isDto = typeof meta === 'function' && ![Object, String, Number, Boolean, Array].includes(meta as never);
    if (!isDto) return value;
    // No body at all is an empty object; a JSON null, string, number or array is a body of the wrong type.
    if (value === undefined) value = {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw ProblemException.validation('body', 'The request body must be a JSON object.');
    }
    return this.inner.transform(value, metadata);
  }
}

/**
 * At most `max` characters as a PostgreSQL varchar(max) counts them: code points. Use it instead of
 * class-validator's MaxLength, whose count (validator.js isLength) skips variation selectors (U+FE0E, U+FE0F):
 * 255 letters and a U+FE0F passed it and the column refused them (SQLSTATE 22001, a 500). Same constraint name
 * ('maxLength', a size check above) and message as MaxLength. It declares nothing in OpenAPI: the DTO's
 * ApiProperty carries the schema's maxLength, as it did beside MaxLength.
 */
export function MaxChars(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxLength',
      constraints: [max],
      validator: {
        validate: (value) => typeof value === 'string' && !exceedsVarchar(value, max),
        defaultMessage: buildMessage(
          (each) => `${each}$property must be shorter than or equal to $constraint1 characters`,
          options,
        ),
      },
    },
    options,
  );
}

/** Optional, but when present may not be null (PATCH of a required field). */
export function OptionalNotNull(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_o, v) => v !== undefined),
    NotEquals(null, { message: '$property may not be null' }),
  );
}

/** Optional and nullable: null clears the field. Other validators run only on non-null values. */
export function Nullable(): PropertyDecorator {
  return ValidateIf((_o, v) => v !== undefined && v !== null);
}

/** An optional set (array) where null clears, like `[]` (spec: "sending null clears it"). */
export function NullClears(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => (value === null ? [] : value)),
    ValidateIf((_o, v) => v !== undefined),
  );
}

/** A project's identifier (`ENG`): a letter, then up to 11 letters or digits; stored upper-case. */
export const PROJECT_IDENTIFIER_RE = /^[A-Za-z][A-Za-z0-9]{0,11}$/;

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID_RE.test(v);
}

/** Path id check shared by every route: a malformed id is a 400 naming the parameter. */
export function assertUuid(value: string, field: string): string {
  if (!isUuid(value)) throw ProblemException.validation(field, 'Must be a valid UUID.');
  return value.toLowerCase();
}
