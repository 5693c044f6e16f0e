import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, IdColumn } from '../common/database/columns';

/** A personal API key. Only the SHA-256 of the secret is stored; the secret is shown once. */
@Entity('api_keys')
@Index('uq_api_keys_hash', ['key_hash'], { unique: true })
@Index('ix_api_keys_user', ['user_id'])
export class ApiKeyEntity {
  @IdColumn() id!: string;
  @Column('uuid') user_id!: string;
  @Column('char', { length: 64 }) key_hash!: string;
  @Column('varchar', { length: 16 }) key_prefix!: string;
  @Column('varchar', { length: 255, default: '' }) label!: string;
  @Column('timestamptz', { nullable: true }) expires_at!: Date | null;
  @Column('timestamptz', { nullable: true }) revoked_at!: Date | null;
  /** Stamped in batches by the servers (CredentialUsage): up to 30 s behind. */
  @Column('timestamptz', { nullable: true }) last_used_at!: Date | null;
  @CreatedAt() created_at!: Date;
}
