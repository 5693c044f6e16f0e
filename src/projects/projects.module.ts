import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { MembersModule } from '../members/members.module';
import { StatesModule } from '../states/states.module';
import { ProjectsBulkController, ProjectsBulkTargets } from './projects-bulk';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { ProjectsController } from './projects.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectSummaryRepository } from './project-summary.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [AuditCoreModule, MembersModule, StatesModule, WebhookOutboxModule],
  controllers: [ProjectsController, ProjectsBulkController],
  providers: [ProjectsRepository, ProjectsService, ProjectsBulkTargets, ProjectSummaryRepository],
  exports: [ProjectsService],
})
export class ProjectsModule {}
