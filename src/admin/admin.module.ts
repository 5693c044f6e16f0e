import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuditModule } from '../audit/audit.module';
import { MembersModule } from '../members/members.module';
import { OAuthModule } from '../oauth/oauth.module';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AdminService } from './admin.service';

@Module({
  imports: [AuditCoreModule, AuditModule, UsersModule, WorkspacesModule, MembersModule, ApiKeysModule, OAuthModule],
  providers: [AdminService],
  exports: [AdminService],
})
export class AdminModule {}
