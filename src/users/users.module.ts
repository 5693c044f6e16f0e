import { Module } from '@nestjs/common';
import { UsersController } from './users.controller';
import { PasswordsService } from './passwords.service';
import { UsersRepository } from './users.repository';

@Module({
  controllers: [UsersController],
  providers: [UsersRepository, PasswordsService],
  exports: [UsersRepository, PasswordsService],
})
export class UsersModule {}
