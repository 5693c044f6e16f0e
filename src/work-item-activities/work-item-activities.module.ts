import { Module } from '@nestjs/common';
import { WorkItemActivitiesController } from './work-item-activities.controller';
import { WorkItemActivitiesRepository } from './work-item-activities.repository';
import { WorkItemActivitiesService } from './work-item-activities.service';

@Module({
  controllers: [WorkItemActivitiesController],
  providers: [WorkItemActivitiesRepository, WorkItemActivitiesService],
  exports: [WorkItemActivitiesService],
})
export class WorkItemActivitiesModule {}
