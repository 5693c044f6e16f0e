import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { WorkflowStatesController, WorkflowsController, WorkflowTransitionsController } from './workflows.controller';
import { WorkflowsRepository } from './workflows.repository';
import { WorkflowsService } from './workflows.service';

/** Exports WorkflowsService: work item creates call `assertCreationRule` on the rule their insert read (creationRuleSql), updates `assertTransitionAllowed`. */
@Module({
  imports: [AuditCoreModule],
  controllers: [WorkflowsController, WorkflowStatesController, WorkflowTransitionsController],
  providers: [WorkflowsRepository, WorkflowsService],
  exports: [WorkflowsService],
})
export class WorkflowsModule {}
