import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, IdColumn, UpdatedAt } from '../common/database/columns';

@Entity('workspaces')
@Index('uq_workspaces_slug', ['slug'], { unique: true, where: '"deleted_at" IS NULL' })
export class WorkspaceEntity {
  @IdColumn() id!: string;
  @Column('varchar', { length: 48 }) slug!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('uuid', { nullable: true }) owner_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
