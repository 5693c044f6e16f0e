import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, IdColumn } from '../common/database/columns';

/** An OAuth access token capped by its scopes. Only the SHA-256 of the token is stored. */
@Entity('oauth_tokens')
@Index('uq_oauth_tokens_hash', ['token_hash'], { unique: true })
@Index('ix_oauth_tokens_user', ['user_id'])
@Index('ix_oauth_tokens_grant', ['grant_id'], { where: '"grant_id" IS NOT NULL' })
export class OAuthTokenEntity {
  @IdColumn() id!: string;
  @Column('uuid') user_id!: string;
  @Column('char', { length: 64 }) token_hash!: string;
  @Column('text', { array: true }) scopes!: string[];
  @Column('varchar', { length: 255, default: '' }) client_name!: string;
  @Column('timestamptz') expires_at!: Date;
  @Column('timestamptz', { nullable: true }) revoked_at!: Date | null;
  @CreatedAt() created_at!: Date;
  /** The app (OAuth client) that obtained it; null for tokens of the admin CLI. */
  @Column('varchar', { length: 64, nullable: true }) client_id!: string | null;
  /** The authorization server's grant: revoking a family revokes every token of its grant. */
  @Column('varchar', { length: 128, nullable: true }) grant_id!: string | null;
  /** The only workspace the token reaches (its app's); null: every workspace of its user. */
  @Column('uuid', { nullable: true }) workspace_id!: string | null;
  @Column('uuid', { nullable: true }) app_installation_id!: string | null;
  /** `oauth` (a person's token) or `bot` (an app installation's client-credentials token). */
  @Column('varchar', { length: 16, default: 'oauth' }) principal_kind!: string;
  /** The authorization server's record of the token (never the token itself). */
  @Column('jsonb', { nullable: true }) payload!: Record<string, unknown> | null;
}
