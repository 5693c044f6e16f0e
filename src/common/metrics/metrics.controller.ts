import { Controller, Get, Header, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/authenticated.decorator';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ErrorCode } from '../errors/error-codes';
import { ProblemException } from '../errors/problem.exception';
import { chargeFailedAuthentication } from '../throttle/credential-throttler.guard';
import { MetricsAccess } from './metrics-access';
import { Metrics } from './metrics';

/**
 * GET /metrics on the API port (absent when METRICS_PORT is set): Prometheus text, for a scraper holding
 * METRICS_TOKEN. An operations endpoint, not part of the v2 API: left out of the OpenAPI document like the
 * probes. Rate limited like any request; a wrong token also counts against the client address, so tokens
 * cannot be guessed at the credential budget's pace.
 */
@ApiExcludeController()
@Public()
@Controller()
export class MetricsController {
  private readonly access: MetricsAccess;

  constructor(
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) cfg: AppConfig,
  ) {
    this.access = new MetricsAccess(cfg.metrics);
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (!this.access.allows(req.headers.authorization, true)) {
      await chargeFailedAuthentication(req);
      throw new ProblemException(ErrorCode.Unauthorized, this.access.refusal, undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    reply.header('Content-Type', this.metrics.contentType);
    return this.metrics.scrape();
  }
}
