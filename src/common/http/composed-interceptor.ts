import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';

/** An interceptor that answers with an Observable at once (not a promise of one): it can run inside a composition. */
export interface SyncInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown>;
}

/**
 * Several interceptors run as one of Nest's interceptor layers, the first outermost, exactly as if each were
 * registered on its own in that order: each part gets a handler whose `handle()` runs the next part (the route's
 * handler after the last), its errors reach the exception filter as before, and everything runs in the caller's
 * async context. What it saves is Nest's wrapping of every layer, per request: a deferred Observable, an async
 * resource binding, a flattening operator and a promise (issue 27: the request path's allocations).
 */
export class ComposedInterceptor implements NestInterceptor {
  constructor(private readonly parts: readonly SyncInterceptor[]) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const run = (i: number): Observable<unknown> =>
      i === this.parts.length ? next.handle() : this.parts[i].intercept(context, { handle: () => run(i + 1) });
    return run(0);
  }
}
