import { Module } from '@nestjs/common';
import { WorkItemLinksController } from './work-item-links.controller';
import { WorkItemLinksRepository } from './work-item-links.repository';
import { WorkItemLinksService } from './work-item-links.service';

@Module({
  controllers: [WorkItemLinksController],
  providers: [WorkItemLinksRepository, WorkItemLinksService],
  exports: [WorkItemLinksService],
})
export class WorkItemLinksModule {}
