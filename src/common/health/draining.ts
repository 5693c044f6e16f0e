/**
 * Draining: set when the process starts its graceful shutdown. From then on /readyz answers 503 while the
 * instance still serves every request, so a load balancer takes it out of rotation before it stops listening
 * (SHUTDOWN_DRAIN_SECONDS; docs/scaling.md).
 */
let draining = false;

export function startDraining(): void {
  draining = true;
}

export function isDraining(): boolean {
  return draining;
}
