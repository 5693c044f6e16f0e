import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransactionScope } from '../common/database/transaction-scope';

/**
 * One transaction around a v1 call that makes several v2 service calls (a work item create with `module`, an
 * array of estimate points, a project PATCH naming its estimate): the services join it (transaction-scope.ts),
 * so either every step commits or none does.
 */
@Injectable()
export class V1Transaction {
  constructor(private readonly ds: DataSource) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    return inTransactionScope(this.ds, () => fn());
  }
}
