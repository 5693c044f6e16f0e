import { Inject, Injectable, Type } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { findExternalHolder, UpsertTable } from '../database/external-pair';
import { inTransactionScope } from '../database/transaction-scope';
import { ProblemException } from '../errors/problem.exception';
import { isUuid } from '../http/validation';
import {
  BulkAborted,
  bulkAnswer,
  BulkWriteResponseDto,
  isFailed,
  notWritten,
  RowFailed,
  rowFailure,
  RowOutcome,
  validateOne,
  validateRows,
} from './bulk';

/**
 * What a resource lends the bulk and upsert routes: its single operations, bound to the request's scope. Each
 * runs with every rule, permission check and audit entry of the route it stands for (they are that route's
 * service methods), so a bulk row can never be let through by a second copy of a rule.
 */
export interface BulkTarget<C extends object = object, U extends object = object> {
  createDto: Type<C>;
  updateDto: Type<U>;
  create(dto: C): Promise<{ id: string }>;
  update(id: string, dto: U): Promise<{ id: string }>;
  /** Absent where the later edition has no bulk-delete (projects). */
  remove?(id: string): Promise<void>;
  /** Where upsert looks for the live record holding an external pair: the table and the scope's id. */
  pair: { table: UpsertTable; workspaceId: string; scopeId: string | null };
}

type Row<T> = { index: number; value: T; id?: string };

/**
 * Bulk writes and upsert over a resource's single operations (gap-reference 9.6). The batch runs in one
 * transaction scope (transaction-scope.ts): each service call's own transaction becomes a savepoint of it, and
 * each row runs in a savepoint of its own, so a failed row leaves the rows before it written and the batch going.
 * all_or_none evaluates every row, then rolls the whole batch back when one failed (409 with every row's result).
 * Work items have a set-based path of their own (WorkItemsBulkService); this one serves resources whose batches
 * are small configuration writes.
 */
@Injectable()
export class BulkWrites {
  constructor(
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  async create<C extends object>(t: BulkTarget<C>, items: Array<Record<string, unknown>>, allOrNone: boolean) {
    const checked = await validateRows(t.createDto, items);
    return this.rows(allOrNone, checked, async (r) => ({
      index: r.index,
      result: 'created',
      id: (await t.create(r.value)).id,
    }));
  }

  async update<U extends object>(t: BulkTarget<object, U>, items: Array<Record<string, unknown>>, allOrNone: boolean) {
    const checked = await validateRows(t.updateDto, items);
    const withIds = checked.map((r): Row<U> | RowFailed => {
      if (isFailed(r)) return r;
      const id = items[r.index].id;
      if (!isUuid(id))
        return rowFailure(r.index, ProblemException.validation('id', 'Each item needs the id (UUID) to update.'));
      return { ...r, id: id.toLowerCase() };
    });
    return this.rows(allOrNone, withIds, async (r) => ({
      index: r.index,
      result: 'updated',
      id: (await t.update(r.id!, r.value)).id,
    }));
  }

  /** Each id deleted as its DELETE would be: a repeated id's later rows are the 404 of a second DELETE. */
  async remove(t: BulkTarget, ids: string[], allOrNone: boolean) {
    const rows = ids.map((id, index) => ({ index, value: id.toLowerCase(), id: id.toLowerCase() }));
    return this.rows(allOrNone, rows, async (r) => {
      await t.remove!(r.value);
      return { index: r.index, result: 'deleted', id: r.value };
    });
  }

  /**
   * A create body: with both external_source and external_id, the live record of the scope holding that pair is
   * updated with it (PATCH rules; created false), else the record is created (create rules). Read and write run
   * in one transaction.
   */
  async upsert<C extends object>(t: BulkTarget<C>, body: unknown): Promise<{ created: boolean; item: { id: string } }> {
    const dto = await validateOne(t.createDto, body);
    const pair = dto as { external_source?: string | null; external_id?: string | null };
    return inTransactionScope(this.ds, async () => {
      const holder =
        pair.external_source && pair.external_id
          ? await findExternalHolder(
              this.ds,
              t.pair.table,
              t.pair.workspaceId,
              t.pair.scopeId,
              pair.external_source,
              pair.external_id,
            )
          : null;
      if (holder) return { created: false, item: await t.update(holder, dto) };
      return { created: true, item: await t.create(dto) };
    });
  }

  private async rows<T>(
    allOrNone: boolean,
    rows: Array<Row<T> | RowFailed>,
    write: (r: Row<T>) => Promise<RowOutcome>,
  ): Promise<BulkWriteResponseDto> {
    let outcomes: RowOutcome[] = [];
    try {
      await inTransactionScope(this.ds, async (client) => {
        // A savepoint of its own, so that rolling the batch back leaves an enclosing scope (an Idempotency-Key's) sound.
        await client.query('SAVEPOINT bulk_batch');
        for (const r of rows) outcomes.push(isFailed(r) ? r : await this.row(client, r, write));
        if (allOrNone && outcomes.some(isFailed)) {
          await client.query('ROLLBACK TO SAVEPOINT bulk_batch');
          throw new BulkAborted(outcomes.map((o) => (isFailed(o) ? o : notWritten(o))));
        }
        await client.query('RELEASE SAVEPOINT bulk_batch');
      });
    } catch (e) {
      if (!(e instanceof BulkAborted)) throw e;
      outcomes = e.outcomes;
    }
    return bulkAnswer(outcomes, allOrNone, this.cfg.publicBaseUrl);
  }

  private async row<T>(client: PoolClient, r: Row<T>, write: (r: Row<T>) => Promise<RowOutcome>) {
    await client.query('SAVEPOINT bulk_row');
    try {
      const out = await write(r);
      await client.query('RELEASE SAVEPOINT bulk_row');
      return out;
    } catch (e) {
      await client.query('ROLLBACK TO SAVEPOINT bulk_row');
      return rowFailure(r.index, e, r.id);
    }
  }
}
