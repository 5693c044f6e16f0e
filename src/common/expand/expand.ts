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

/** The route silently ignores `?expand=` and returns the flat object (properties, options). */
export function IgnoresExpand(): MethodDecorator {
  return SetMetadata(IGNORE_EXPAND_META, true);
}

export function parseExpand(raw: unknown, allowed: readonly string[]): Set<string> {
  const text = Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '';
  const values = text.split(',').map((s) => s.trim()).filter(Boolean);
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
