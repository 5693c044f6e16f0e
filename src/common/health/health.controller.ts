import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Public } from '../auth/authenticated.decorator';
import { isDraining } from './draining';

/** Liveness and readiness probes for load balancers and orchestrators; not part of the v2 API. */
@ApiExcludeController()
@SkipThrottle()
@Public()
@Controller()
export class HealthController {
  constructor(private readonly ds: DataSource) {}

  @Get('healthz')
  @HttpCode(200)
  health() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    // Shutting down: out of the balancer's rotation, though requests are still served until the drain ends.
    if (isDraining()) {
      reply.status(503);
      return { status: 'draining', database: 'unknown' };
    }
    // A connection of its own, not one of the pool's: a probe answers within 3 s, and a database that hangs
    // never ties up the connections requests need (a stuck probe query would hold one until it answered).
    const probe = new Client({
      connectionString: (this.ds.options as { url: string }).url,
      connectionTimeoutMillis: 3000,
      query_timeout: 3000,
    });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      void probe.end().catch(() => undefined);
      return { status: 'ok', database: 'up' };
    } catch {
      // Not awaited: ending a connection to a database that hangs would hang too.
      void probe.end().catch(() => undefined);
      reply.status(503);
      return { status: 'unavailable', database: 'down' };
    }
  }
}
