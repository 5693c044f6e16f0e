import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { AppsModule } from '../apps/apps.module';
import { MembersModule } from '../members/members.module';
import { UsersModule } from '../users/users.module';
import { FormBodyParser } from './form-body';
import { OAuthAudit } from './oauth-audit';
import { OAuthInteractions } from './oauth-interactions.service';
import { OAuthStore } from './oauth-store';
import { OAuthServer } from './oauth-server';
import { OAuthPagesController, OAuthProtocolController } from './oauth.controller';
import { ServerSecrets } from './server-secrets';
import { SignInService } from './sign-in.service';

/** The OAuth 2.0 authorization server for apps, its sign-in and consent pages (docs/oauth.md). HTTP only. */
@Module({
  imports: [AuditCoreModule, AppsModule, UsersModule, MembersModule],
  controllers: [OAuthProtocolController, OAuthPagesController],
  providers: [OAuthAudit, OAuthStore, OAuthServer, OAuthInteractions, SignInService, ServerSecrets, FormBodyParser],
})
export class OAuthServerModule {}
