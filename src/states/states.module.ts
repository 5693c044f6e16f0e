import { Module } from '@nestjs/common';
import { StatesBulkController, StatesBulkTargets } from './states-bulk';
import { StatesController } from './states.controller';
import { StatesRepository } from './states.repository';
import { StatesService } from './states.service';

@Module({
  controllers: [StatesController, StatesBulkController],
  providers: [StatesRepository, StatesService, StatesBulkTargets],
  exports: [StatesRepository, StatesService],
})
export class StatesModule {}
