import { Module } from '@nestjs/common';
import { ProjectLabelsController, WorkspaceLabelsController } from './labels.controller';
import { LabelsRepository } from './labels.repository';
import { LabelsService } from './labels.service';

@Module({
  controllers: [ProjectLabelsController, WorkspaceLabelsController],
  providers: [LabelsRepository, LabelsService],
  exports: [LabelsService],
})
export class LabelsModule {}
