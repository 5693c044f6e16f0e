import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { RelationDefinitionsController } from './relation-definitions.controller';
import { RelationDefinitionsRepository } from './relation-definitions.repository';
import { RelationDefinitionsService } from './relation-definitions.service';
import { WorkItemDependenciesController, WorkItemRelationsController } from './work-item-relations.controller';
import { WorkItemRelationsRepository } from './work-item-relations.repository';
import { WorkItemRelationsService } from './work-item-relations.service';

/** Relation definitions (workspace), and the relations and dependencies between work items. */
@Module({
  imports: [AuditCoreModule, WebhookOutboxModule],
  controllers: [RelationDefinitionsController, WorkItemRelationsController, WorkItemDependenciesController],
  providers: [
    RelationDefinitionsRepository,
    RelationDefinitionsService,
    WorkItemRelationsRepository,
    WorkItemRelationsService,
  ],
  exports: [RelationDefinitionsService, WorkItemRelationsService],
})
export class WorkItemRelationsModule {}
