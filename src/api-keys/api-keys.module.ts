import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { ApiKeysService } from './api-keys.service';

@Module({ imports: [AuditCoreModule], providers: [ApiKeysService], exports: [ApiKeysService] })
export class ApiKeysModule {}
