import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditFailuresInterceptor } from './audit-failures.interceptor';
import { AuditLogsController } from './audit-logs.controller';
import { AuditLogsRepository } from './audit-logs.repository';
import { AuditLogsService } from './audit-logs.service';

/**
 * The audit-log API (read only) and the recording of 403s raised by services. Recording itself is the
 * global AuditCoreModule (AuditService); guard failures are recorded by AuditSecurityEvents (CommonModule).
 */
@Module({
  controllers: [AuditLogsController],
  providers: [AuditLogsRepository, AuditLogsService, { provide: APP_INTERCEPTOR, useClass: AuditFailuresInterceptor }],
  exports: [AuditLogsService],
})
export class AuditModule {}
