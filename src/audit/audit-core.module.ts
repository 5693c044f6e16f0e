import { Module } from '@nestjs/common';
import { AuditService } from './audit.service';

/** The audit recording service (AuditService): imported by every module that records audit entries. */
@Module({ providers: [AuditService], exports: [AuditService] })
export class AuditCoreModule {}
