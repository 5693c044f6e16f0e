import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GIN index over work_items.custom_values (values keyed by property id): the catalogue's clean-ups
 * (`custom_values ? <property id>`, `?|` option ids) and later custom property filters (`@>`).
 * Declared on WorkItemEntity with synchronize: false.
 */
export class CustomValuesIndex1795337181511 implements MigrationInterface {
  name = 'CustomValuesIndex1795337181511';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_work_items_custom_values" ON "work_items" USING gin ("custom_values")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_custom_values"`);
  }
}
