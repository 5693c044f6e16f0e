import { Module } from '@nestjs/common';
import { LabelsBulkController, LabelsBulkTargets } from './labels-bulk';
import { ProjectLabelsController, WorkspaceLabelsController } from './labels.controller';
import { LabelsRepository } from './labels.repository';
import { LabelsService } from './labels.service';

@Module({
  controllers: [ProjectLabelsController, LabelsBulkController, WorkspaceLabelsController],
  providers: [LabelsRepository, LabelsService, LabelsBulkTargets],
  exports: [LabelsService],
})
export class LabelsModule {}
