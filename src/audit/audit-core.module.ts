import { Global, Module } from '@nestjs/common';
import { AuditService } from './audit.service';

/** The audit recording service, available to every module. */
@Global()
@Module({ providers: [AuditService], exports: [AuditService] })
export class AuditCoreModule {}
