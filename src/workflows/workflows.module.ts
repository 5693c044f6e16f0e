import { Module } from '@nestjs/common';
import { WorkflowStatesController, WorkflowsController, WorkflowTransitionsController } from './workflows.controller';
import { WorkflowsRepository } from './workflows.repository';
import { WorkflowsService } from './workflows.service';

/** Exports WorkflowsService: work item writes call `assertCreateAllowed` and `assertTransitionAllowed`. */
@Module({
  controllers: [WorkflowsController, WorkflowStatesController, WorkflowTransitionsController],
  providers: [WorkflowsRepository, WorkflowsService],
  exports: [WorkflowsService],
})
export class WorkflowsModule {}
