import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { defer, firstValueFrom, from, map, Observable, of } from 'rxjs';
import { ComposedInterceptor, SyncInterceptor } from '../../src/common/http/composed-interceptor';

/** A part that logs its name on the way in and on the way out, and tags the response. */
const part = (name: string, log: string[]): SyncInterceptor => ({
  intercept: (_ctx: ExecutionContext, next: CallHandler) => {
    log.push(`in ${name}`);
    return next.handle().pipe(
      map((v) => {
        log.push(`out ${name}`);
        return `${name}(${String(v)})`;
      }),
    );
  },
});

const ctx = {} as ExecutionContext;
const handler = (log: string[]): CallHandler => ({
  handle: () =>
    defer(() => {
      log.push('handler');
      return of('body');
    }),
});

describe('ComposedInterceptor (several interceptors as one of Nest layer)', () => {
  it('runs the parts in order, the first outermost, the handler once, and their responses back out in reverse', async () => {
    const log: string[] = [];
    const composed = new ComposedInterceptor([part('a', log), part('b', log), part('c', log)]);
    expect(await firstValueFrom(composed.intercept(ctx, handler(log)))).toBe('a(b(c(body)))');
    expect(log).toEqual(['in a', 'in b', 'in c', 'handler', 'out c', 'out b', 'out a']);
  });

  it('a part that answers without calling handle() stops the chain: inner parts and the handler never run', async () => {
    const log: string[] = [];
    const replay: SyncInterceptor = { intercept: () => of('stored') };
    const composed = new ComposedInterceptor([part('a', log), replay, part('c', log)]);
    expect(await firstValueFrom(composed.intercept(ctx, handler(log)))).toBe('a(stored)');
    expect(log).toEqual(['in a', 'out a']);
  });

  it("an inner part's error reaches the outer parts and the caller, and the handler does not run", async () => {
    const log: string[] = [];
    const refuse: SyncInterceptor = {
      intercept: () => {
        throw new Error('bad expand');
      },
    };
    // The outer part hands the inner chain over later, from a promise (as the idempotency interceptor does).
    const later: SyncInterceptor = {
      intercept: (_c, next) => from(Promise.resolve().then(() => firstValueFrom(next.handle()))),
    };
    const composed = new ComposedInterceptor([later, refuse]);
    await expect(firstValueFrom(composed.intercept(ctx, handler(log)))).rejects.toThrow('bad expand');
    expect(log).toEqual([]);
  });

  it('inner parts run in the async context the outer part set up (a transaction scope)', async () => {
    const als = new AsyncLocalStorage<string>();
    const scope: SyncInterceptor = {
      intercept: (_c, next) => from(als.run('scope', () => firstValueFrom(next.handle()))),
    };
    const reader: SyncInterceptor = {
      intercept: () => new Observable((s) => void Promise.resolve().then(() => (s.next(als.getStore()), s.complete()))),
    };
    const composed = new ComposedInterceptor([scope, reader]);
    expect(await firstValueFrom(composed.intercept(ctx, handler([])))).toBe('scope');
  });
});
