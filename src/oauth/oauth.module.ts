import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { MembersModule } from '../members/members.module';
import { UsersModule } from '../users/users.module';
import { FormBodyParser } from './form-body';
import { OAuthAudit } from './oauth-audit';
import { OAuthInteractions } from './oauth-interactions.service';
import { OAuthStore } from './oauth-store';
import { OAuthServer } from './oauth-server';
import { OAuthTokensService } from './oauth-tokens.service';
import { OAuthPagesController, OAuthProtocolController } from './oauth.controller';
import { ServerSecrets } from './server-secrets';
import { SignInService } from './sign-in.service';

/** OAuth access tokens (admin CLI) and the OAuth 2.0 authorization server for apps (docs/oauth.md). */
@Module({
  imports: [AppsModule, UsersModule, MembersModule],
  controllers: [OAuthProtocolController, OAuthPagesController],
  providers: [
    OAuthTokensService,
    OAuthAudit,
    OAuthStore,
    OAuthServer,
    OAuthInteractions,
    SignInService,
    ServerSecrets,
    FormBodyParser,
  ],
  exports: [OAuthTokensService],
})
export class OAuthModule {}
