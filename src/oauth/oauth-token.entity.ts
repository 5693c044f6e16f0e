import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, IdColumn } from '../common/database/columns';

/** An OAuth access token capped by its scopes. Only the SHA-256 of the token is stored. */
@Entity('oauth_tokens')
@Index('uq_oauth_tokens_hash', ['token_hash'], { unique: true })
@Index('ix_oauth_tokens_user', ['user_id'])
export class OAuthTokenEntity {
  @IdColumn() id!: string;
  @Column('uuid') user_id!: string;
  @Column('char', { length: 64 }) token_hash!: string;
  @Column('text', { array: true }) scopes!: string[];
  @Column('varchar', { length: 255, default: '' }) client_name!: string;
  @Column('timestamptz') expires_at!: Date;
  @Column('timestamptz', { nullable: true }) revoked_at!: Date | null;
  @CreatedAt() created_at!: Date;
}
