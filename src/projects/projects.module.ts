import { Module } from '@nestjs/common';
import { MembersModule } from '../members/members.module';
import { StatesSeedRepository } from '../states/states.repository';
import { ProjectsBulkController, ProjectsBulkTargets } from './projects-bulk';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { ProjectsController } from './projects.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectSummaryRepository } from './project-summary.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [MembersModule, WebhookOutboxModule],
  controllers: [ProjectsController, ProjectsBulkController],
  providers: [ProjectsRepository, ProjectsService, ProjectsBulkTargets, StatesSeedRepository, ProjectSummaryRepository],
  exports: [ProjectsRepository, ProjectsService],
})
export class ProjectsModule {}
