import { Controller, Get, Headers, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/authenticated.decorator';
import { APP_CONFIG, AppConfig } from '../config/config';
import { catalogue, catalogueEntry, catalogueHtml, entryHtml, prefersHtml } from './error-catalogue';
import { isErrorCode } from './error-codes';
import { ProblemException } from './problem.exception';

/**
 * `GET /errors/` and `GET /errors/{code}`: where every problem's `type` URI leads. HTML for browsers, JSON for
 * everyone else (by Accept). Public, outside the v2 API (not in its OpenAPI document), and counted against the
 * client address's rate-limit budget like the schema.
 */
@ApiExcludeController()
@Public()
@Controller('errors')
export class ErrorCatalogueController {
  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {}

  @Get()
  list(@Headers('accept') accept: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    const base = this.cfg.publicBaseUrl;
    return this.negotiate(
      reply,
      accept,
      () => catalogueHtml(base),
      () => ({ codes: catalogue(base) }),
    );
  }

  @Get(':code')
  one(
    @Param('code') code: string,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (!isErrorCode(code)) throw ProblemException.notFound(`Error code "${code}"`);
    const base = this.cfg.publicBaseUrl;
    return this.negotiate(
      reply,
      accept,
      () => entryHtml(base, code),
      () => catalogueEntry(base, code),
    );
  }

  private negotiate(reply: FastifyReply, accept: string | undefined, html: () => string, json: () => unknown) {
    void reply.header('Vary', 'Accept').header('Cache-Control', 'public, max-age=3600');
    if (!prefersHtml(accept)) return json();
    void reply.type('text/html; charset=utf-8');
    return html();
  }
}
