import { Module } from '@nestjs/common';
import { StatesController } from './states.controller';
import { StatesRepository, StatesSeedRepository } from './states.repository';
import { StatesService } from './states.service';

@Module({
  controllers: [StatesController],
  providers: [StatesRepository, StatesSeedRepository, StatesService],
  exports: [StatesService],
})
export class StatesModule {}
