import { Module } from '@nestjs/common';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { ProjectMembersController } from './project-members.controller';
import { WorkspaceMembersController } from './workspace-members.controller';

@Module({
  controllers: [WorkspaceMembersController, ProjectMembersController],
  providers: [MembersRepository, MembersService],
  exports: [MembersRepository, MembersService],
})
export class MembersModule {}
