import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditCoreModule } from './audit-core.module';
import { AuditFailuresInterceptor } from './audit-failures.interceptor';
import { AuditLogsController } from './audit-logs.controller';
import { AuditLogsRepository } from './audit-logs.repository';
import { AuditLogsService } from './audit-logs.service';

/**
 * The audit-log API (read only) and the recording of 403s raised by services. Recording itself is
 * AuditCoreModule (AuditService); guard failures are recorded through AuditSecurityModule.
 */
@Module({
  imports: [AuditCoreModule],
  controllers: [AuditLogsController],
  providers: [AuditLogsRepository, AuditLogsService, { provide: APP_INTERCEPTOR, useClass: AuditFailuresInterceptor }],
  exports: [AuditLogsService],
})
export class AuditModule {}
