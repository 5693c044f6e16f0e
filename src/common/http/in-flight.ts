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
  fastify.addHook('onRequest', async (req) => {
    counted.add(req);
    inFlight++;
  });
  const done = async (req: FastifyRequest) => {
    if (!counted.delete(req)) return;
    inFlight--;
    if (inFlight === 0) {
      const w = waiters;
      waiters = [];
      w.forEach((f) => f());
    }
  };
  fastify.addHook('onSend', async (req) => done(req));
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
