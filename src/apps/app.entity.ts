import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, IdColumn, UpdatedAt, WorkspaceIdColumn } from '../common/database/columns';

/**
 * An OAuth client registered in a workspace by its admins. Only the SHA-256 of the client secret is kept (null:
 * a public client, which proves itself with PKCE alone). Redirect URIs match exactly; `scopes` are those the app
 * may ask for.
 */
@Entity('apps')
@Index('uq_apps_client_id', ['client_id'], { unique: true })
@Index('ix_apps_workspace', ['workspace_id'])
export class AppEntity {
  @IdColumn() id!: string;
  @WorkspaceIdColumn() workspace_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('varchar', { length: 64 }) client_id!: string;
  @Column('char', { length: 64, nullable: true }) client_secret_hash!: string | null;
  @Column('text', { array: true }) redirect_uris!: string[];
  @Column('text', { array: true }) scopes!: string[];
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}

/** An app installed in a workspace: its bot user acts there with client-credentials tokens. */
@Entity('app_installations')
@Index('uq_app_installations_app_workspace', ['app_id', 'workspace_id'], { unique: true })
@Index('ix_app_installations_workspace', ['workspace_id'])
export class AppInstallationEntity {
  @IdColumn() id!: string;
  @Column('uuid') app_id!: string;
  @WorkspaceIdColumn() workspace_id!: string;
  @Column('uuid') bot_user_id!: string;
  @Column('varchar', { length: 16, default: 'installed' }) status!: string;
  @CreatedAt() created_at!: Date;
}
