import { Module } from '@nestjs/common';
import { StatesBulk } from './states-bulk';
import { StatesController } from './states.controller';
import { StatesRepository } from './states.repository';
import { StatesService } from './states.service';

@Module({
  controllers: [StatesController, StatesBulk.controller],
  providers: [StatesRepository, StatesService, StatesBulk.targets],
  exports: [StatesRepository, StatesService],
})
export class StatesModule {}
