import { Module } from '@nestjs/common';
import { StatesBulk } from './states-bulk';
import { StatesController } from './states.controller';
import { StatesRepository, StatesSeedRepository } from './states.repository';
import { StatesService } from './states.service';

@Module({
  controllers: [StatesController, StatesBulk.controller],
  providers: [StatesRepository, StatesSeedRepository, StatesService, StatesBulk.targets],
  exports: [StatesService],
})
export class StatesModule {}
