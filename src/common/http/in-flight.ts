import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Requests whose handlers are still running. Shutdown waits for this to reach zero before it ends the
 * database pool: a client that hung up (autocannon at the end of a run, a proxy timing out) closes its
 * socket, so the HTTP server finishes closing while the handler is still between two statements, and
 * its next query would meet an ended pool (a 500 in the log, a write cut in half at the service level).
 * The handler ends with reply.send() even when the socket is gone, and onSend runs for every send.
 */
const counted = new WeakSet<FastifyRequest>();
let inFlight = 0;
let waiters: Array<() => void> = [];

export function trackInFlight(fastify: FastifyInstance): void {
  // Callback-style hooks: synchronous bookkeeping needs no promise per request.
  fastify.addHook('onRequest', (req, _reply, next) => {
    counted.add(req);
    inFlight++;
    next();
  });
  const finished = (req: FastifyRequest) => {
    if (!counted.delete(req)) return;
    inFlight--;
    if (inFlight === 0) {
      const w = waiters;
      waiters = [];
      w.forEach((f) => f());
    }
  };
  fastify.addHook('onSend', (req, _reply, payload, next) => {
    finished(req);
    next(null, payload);
  });
}

/** Requests whose handlers are running now (the http_requests_in_flight gauge). */
export function inFlightCount(): number {
  return inFlight;
}

/** Resolves when no handler is running, or after `timeoutMs` (a handler stuck on a lock must not block exit). */
export function inFlightIdle(timeoutMs: number): Promise<void> {
  if (inFlight === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    waiters.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
