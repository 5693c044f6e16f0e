import { Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyPruner } from './idempotency-pruner';
import { IdempotencyRepository } from './idempotency.repository';

/** Idempotency-Key on POST (the interceptor is registered globally by AppModule) and the job that prunes it. */
@Module({
  providers: [IdempotencyRepository, IdempotencyPruner, IdempotencyInterceptor],
  exports: [IdempotencyInterceptor, IdempotencyPruner],
})
export class IdempotencyModule {}
