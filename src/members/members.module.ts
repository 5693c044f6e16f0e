import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { ProjectMembersController } from './project-members.controller';
import { WorkspaceMembersController } from './workspace-members.controller';

@Module({
  imports: [AuditCoreModule],
  controllers: [WorkspaceMembersController, ProjectMembersController],
  providers: [MembersRepository, MembersService],
  exports: [MembersService],
})
export class MembersModule {}
