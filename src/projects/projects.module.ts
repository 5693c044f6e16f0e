import { Module } from '@nestjs/common';
import { MembersModule } from '../members/members.module';
import { StatesSeedRepository } from '../states/states.repository';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { ProjectsController } from './projects.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectSummaryRepository } from './project-summary.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [MembersModule, WebhookOutboxModule],
  controllers: [ProjectsController],
  providers: [ProjectsRepository, ProjectsService, StatesSeedRepository, ProjectSummaryRepository],
  exports: [ProjectsRepository, ProjectsService],
})
export class ProjectsModule {}
