import {
  applyDecorators,
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiQuery } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { ProblemException } from '../errors/problem.exception';

export const EXPAND_META = 'wt:expand';
export const IGNORE_EXPAND_META = 'wt:ignore-expand';

declare module 'fastify' {
  interface FastifyRequest {
    expand?: Set<string>;
  }
}

/** The route accepts `?expand=` with these values (comma-separated); documented as an enum. */
export function Expandable(values: readonly string[]): MethodDecorator {
  return applyDecorators(
    SetMetadata(EXPAND_META, values),
    ApiQuery({
      name: 'expand',
      required: false,
      // A comma-separated list (form style, not exploded): `expand=state,labels`.
      schema: { type: 'array', items: { type: 'string', enum: [...values] } } as never,
      style: 'form',
      explode: false,
      description: `Comma-separated related objects to add beside their ids: ${values.join(', ')}.`,
    }),
  );
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What an expansion looks like when a client sends it back: an object carrying its `id`. */
const isExpandedObject = (v: unknown): boolean => isPlainObject(v) && typeof v.id === 'string';

/**
 * A write field whose key is also an expansion (`state`, `type`, `parent`, `assignees`, `labels` are name
 * inputs too): what a client sends back from an expanded read is ignored (gap-reference 4: "nested objects on
 * writes are ignored"), so a body read with `?expand=` can be sent back as it is. Ignored: an expanded object
 * (an object with a string `id`); null on a to-one (the expansion of an empty relation); on a to-many an array of
 * expanded objects, or [] beside its id field (the expansion of an empty set). Strings and string arrays stay the
 * name form; any other value (an object without `id`, an object for a to-many) reaches the field's validators and
 * is a 400 naming the field. ExpandedShapeSchema documents exactly these forms.
 */
export function ExpandedShapeIgnored(idField: string, toMany: boolean): PropertyDecorator {
  return Transform(({ value, obj }) => {
    if (!toMany) return value === null || isExpandedObject(value) ? undefined : value;
    if (!Array.isArray(value)) return value;
    if (value.length > 0 && value.every(isExpandedObject)) return undefined;
    return value.length === 0 && (obj as Record<string, unknown>)[idField] !== undefined ? undefined : value;
  });
}

/** An expanded object sent back on a write: ignored (ExpandedShapeIgnored). */
const EXPANDED_SENT_BACK = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
  additionalProperties: true,
  description: 'An object read with ?expand= and sent back unchanged: ignored.',
};

/**
 * The OpenAPI schema of a write field that takes names and also tolerates its expansion sent back
 * (ExpandedShapeIgnored): a name (or names), the ignored expanded form, or null.
 */
export function ExpandedShapeSchema(toMany: boolean, name: Record<string, unknown>): Record<string, unknown> {
  if (!toMany) return { anyOf: [name, EXPANDED_SENT_BACK, { type: 'null' }] };
  return {
    anyOf: [
      { type: 'array', maxItems: 100, items: name },
      { type: 'array', minItems: 1, items: EXPANDED_SENT_BACK },
      { type: 'null' },
    ],
  };
}

/** The route silently ignores `?expand=` and returns the flat object (properties, options). */
export function IgnoresExpand(): MethodDecorator {
  return SetMetadata(IGNORE_EXPAND_META, true);
}

export function parseExpand(raw: unknown, allowed: readonly string[]): Set<string> {
  const text = Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '';
  const values = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = values.filter((v) => !allowed.includes(v));
  if (unknown.length) {
    const hint = allowed.length ? `Allowed values: ${allowed.join(', ')}.` : 'This resource does not accept expand.';
    throw ProblemException.validation('expand', `Unknown expand value(s): ${unknown.join(', ')}. ${hint}`);
  }
  return new Set(values);
}

/**
 * Validates `?expand=` on every route in one place: the route's allowlist, 400 naming the allowed
 * values otherwise (routes without an allowlist accept none), and stores the parsed set on the request.
 */
@Injectable()
export class ExpandInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<FastifyRequest>();
      const raw = (req.query as Record<string, unknown> | undefined)?.expand;
      const handler = context.getHandler();
      if (raw === undefined || this.reflector.get<boolean>(IGNORE_EXPAND_META, handler)) {
        req.expand = new Set();
      } else {
        req.expand = parseExpand(raw, this.reflector.get<string[]>(EXPAND_META, handler) ?? []);
      }
    }
    return next.handle();
  }
}

export const ExpandParam = createParamDecorator((_d: unknown, host: ExecutionContext): Set<string> => {
  return host.switchToHttp().getRequest<FastifyRequest>().expand ?? new Set();
});
