import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/auth/authenticated.decorator';
import { FormBody } from './form-body';
import { FormBody as Form, OAuthInteractions } from './oauth-interactions.service';
import { OAUTH_ROUTES, OAuthServer } from './oauth-server';

/**
 * The authorization server's protocol endpoints, answered by oidc-provider (OAuthServer.handle): the
 * authorization endpoint (also at Plane's `/auth/o/authorize-app/`), the token endpoint (RFC 6749), revocation
 * (RFC 7009), introspection (RFC 7662) and the metadata (RFC 8414). Not API v2 operations: the OpenAPI document
 * names them in its oauth2 security scheme.
 */
@ApiExcludeController()
@Controller()
export class OAuthProtocolController {
  constructor(private readonly server: OAuthServer) {}

  @Get('.well-known/oauth-authorization-server')
  @Public()
  metadata(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply);
  }

  @Get('auth/o/authorize//')
  @Public()
  authorize(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply);
  }

  @Get('auth/o/authorize-app//')
  @Public()
  authorizeApp(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply, OAUTH_ROUTES.authorization);
  }

  /** Where the sign-in and consent pages send the browser back to (the provider's "resume"; its path has no trailing slash). */
  @Get('auth/o/authorize/:uid')
  @Public()
  resume(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply);
  }

  @Post('auth/o/token//')
  @Public()
  @FormBody('raw')
  token(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply);
  }

  @Post('auth/o/revoke//')
  @Public()
  @FormBody('raw')
  revoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply);
  }

  @Post('auth/o/introspect//')
  @Public()
  @FormBody('raw')
  introspect(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.server.handle(req, reply);
  }
}

/** The sign-in and consent pages (server-rendered HTML forms). */
@ApiExcludeController()
@Controller('auth/o/interaction')
export class OAuthPagesController {
  constructor(private readonly interactions: OAuthInteractions) {}

  @Get(':uid//')
  @Public()
  show(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('uid') uid: string) {
    return this.interactions.show(req, reply, uid);
  }

  @Post(':uid/login//')
  @Public()
  @FormBody('form')
  login(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('uid') uid: string, @Body() body: Form) {
    return this.interactions.submitLogin(req, reply, uid, body);
  }

  @Post(':uid/consent//')
  @Public()
  @FormBody('form')
  consent(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('uid') uid: string, @Body() body: Form) {
    return this.interactions.submitConsent(req, reply, uid, body);
  }
}
