import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { OAuthTokensService } from './oauth-tokens.service';

/** OAuth access tokens issued by the admin CLI. The authorization server for apps is OAuthServerModule. */
@Module({ imports: [AuditCoreModule], providers: [OAuthTokensService], exports: [OAuthTokensService] })
export class OAuthModule {}
