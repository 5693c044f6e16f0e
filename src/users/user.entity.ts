import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, IdColumn, UpdatedAt } from '../common/database/columns';

@Entity('users')
@Index('uq_users_email', ['email'], { unique: true, where: '"deleted_at" IS NULL' })
export class UserEntity {
  @IdColumn() id!: string;
  /** Stored lower-cased; unique among live users. */
  @Column('varchar', { length: 320 }) email!: string;
  @Column('varchar', { length: 255 }) display_name!: string;
  @Column('varchar', { length: 255, default: '' }) first_name!: string;
  @Column('varchar', { length: 255, default: '' }) last_name!: string;
  @Column('text', { nullable: true }) avatar_url!: string | null;
  @Column('boolean', { default: true }) is_active!: boolean;
  /** argon2id hash (PHC string) of the sign-in page's password; null: the user cannot sign in there. */
  @Column('text', { nullable: true }) password_hash!: string | null;
  @Column('timestamptz', { nullable: true }) password_updated_at!: Date | null;
  /** An app installation's bot user: acts only through client-credentials tokens, never signs in. */
  @Column('boolean', { default: false }) is_bot!: boolean;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
