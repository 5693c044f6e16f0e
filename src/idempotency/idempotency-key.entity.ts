import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt } from '../common/database/columns';

/**
 * The stored response of a POST sent with an `Idempotency-Key`: per credential (`api_key:<id>`, `oauth:<id>`) and
 * key, with the fingerprint of the request (method, path and query, body) it answered. Written in the transaction
 * of the change; replayed until `expires_at` (24 h), then pruned.
 */
@Entity('idempotency_keys')
@Index('ix_idempotency_keys_expires', ['expires_at'])
export class IdempotencyKeyEntity {
  @PrimaryColumn('varchar', { length: 100, primaryKeyConstraintName: 'pk_idempotency_keys' }) credential!: string;
  @PrimaryColumn('varchar', { length: 255, primaryKeyConstraintName: 'pk_idempotency_keys' }) key!: string;
  @Column('char', { length: 64 }) fingerprint!: string;
  @Column('smallint') status_code!: number;
  @Column('text', { nullable: true }) body!: string | null;
  @CreatedAt() created_at!: Date;
  @Column('timestamptz') expires_at!: Date;
}
