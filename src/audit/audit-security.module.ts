import { Module } from '@nestjs/common';
import { SecurityEvents } from '../common/auth/security-events';
import { AuditCoreModule } from './audit-core.module';
import { AuditSecurityEvents } from './audit-security-events';

/**
 * Binds the foundation's SecurityEvents port (src/common/auth) to AuditSecurityEvents, which records the
 * guards' failures in the trail. The app module imports it, so its guards (AuthGuard, the throttler) receive it.
 */
@Module({
  imports: [AuditCoreModule],
  providers: [AuditSecurityEvents, { provide: SecurityEvents, useExisting: AuditSecurityEvents }],
  exports: [SecurityEvents],
})
export class AuditSecurityModule {}
