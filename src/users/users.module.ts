import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { UsersController } from './users.controller';
import { PasswordsService } from './passwords.service';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [AuditCoreModule],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, PasswordsService],
  exports: [UsersService, PasswordsService],
})
export class UsersModule {}
