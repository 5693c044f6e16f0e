import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { MembersModule } from '../members/members.module';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';

/** Apps (OAuth clients) and their installations; registered through the admin CLI. */
@Module({
  imports: [AuditCoreModule, UsersModule, MembersModule, WorkspacesModule],
  providers: [AppsRepository, AppsService],
  exports: [AppsService],
})
export class AppsModule {}
