import { Global, Module } from '@nestjs/common';
import { AuditSecurityEvents } from '../audit/audit-security-events';
import { AuthRepository } from './auth/auth.repository';
import { SecurityEvents } from './auth/security-events';
import { HealthController } from './health/health.controller';
import { SchemaController } from './openapi/schema.controller';

/** Shared mechanisms available to every module. */
@Global()
@Module({
  controllers: [HealthController, SchemaController],
  providers: [AuthRepository, { provide: SecurityEvents, useClass: AuditSecurityEvents }],
  exports: [AuthRepository, SecurityEvents],
})
export class CommonModule {}
