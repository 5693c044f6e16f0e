import { Module } from '@nestjs/common';
import { OAuthTokensService } from './oauth-tokens.service';

/** OAuth access tokens issued by the admin CLI. The authorization server for apps is OAuthServerModule. */
@Module({ providers: [OAuthTokensService], exports: [OAuthTokensService] })
export class OAuthModule {}
