import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { Public } from '../auth/authenticated.decorator';

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
    try {
      // A probe answers promptly: a database that hangs counts as down after 3 s.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('readiness timeout')), 3000)));
      await Promise.race([this.ds.query('SELECT 1'), timeout]).finally(() => clearTimeout(timer));
      return { status: 'ok', database: 'up' };
    } catch {
      reply.status(503);
      return { status: 'unavailable', database: 'down' };
    }
  }
}
