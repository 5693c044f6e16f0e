import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CustomValuesRepository } from '../custom-fields/custom-values.repository';
import { PropertyOptionsRepository } from '../work-item-properties/property-options.repository';
import { WorkItemPropertyDto } from '../work-item-properties/work-item-properties.dto';
import { mapProperty } from '../work-item-properties/work-item-properties.mapper';
import { WorkItemPropertiesRepository } from '../work-item-properties/work-item-properties.repository';
import { CatalogAudit } from './catalog-audit';
import { AttachPropertiesDto, AttachedPropertiesDto } from './work-item-types.dto';
import { TypeRow } from './work-item-types.mapper';
import { Owner, WorkItemTypesRepository } from './work-item-types.repository';
import { TypeModeGate } from './type-surface';

/**
 * Properties attached to types (one property, many types; both of the same level). Attaching only
 * links existing properties; detaching removes the link and the property's values on work items of
 * that type (not restored by attaching again).
 */
@Injectable()
export class TypePropertiesService {
  constructor(
    private readonly gate: TypeModeGate,
    private readonly types: WorkItemTypesRepository,
    private readonly properties: WorkItemPropertiesRepository,
    private readonly options: PropertyOptionsRepository,
    private readonly values: CustomValuesRepository,
    private readonly audit: CatalogAudit,
  ) {}

  async list(owner: Owner, typeId: string, q: ListQuery) {
    const type = await this.readableType(owner, typeId);
    const { rows, envelope } = await this.properties.listAttached(owner.workspaceId, type.id, q);
    const opts = await this.options.forProperties(
      owner.workspaceId,
      rows.filter((r) => r.property_type === 'OPTION').map((r) => r.id),
    );
    return envelope(rows.map((r) => mapProperty(r, opts.get(r.id) ?? [])));
  }

  async get(owner: Owner, typeId: string, propertyId: string): Promise<WorkItemPropertyDto> {
    const type = await this.readableType(owner, typeId);
    const row = (await this.properties.isAttached(owner.workspaceId, type.id, propertyId))
      ? await this.properties.get({ workspaceId: owner.workspaceId, projectId: type.project_id }, propertyId)
      : null;
    if (!row) throw ProblemException.notFound('Property attached to this type');
    const opts = await this.options.forProperties(owner.workspaceId, [row.id]);
    return mapProperty(row, opts.get(row.id) ?? []);
  }

  async attach(
    ctx: RequestContext,
    owner: Owner,
    typeId: string,
    dto: AttachPropertiesDto,
  ): Promise<AttachedPropertiesDto> {
    const ids = [...new Set(dto.properties.map((s) => s.toLowerCase()))];
    return this.gate.transaction(ctx, async (tx) => {
      const type = await this.types.getOwned(owner, typeId, tx, true);
      if (!type) throw ProblemException.notFound('Work item type');
      const found = await this.properties.ownedIds(owner, ids, tx);
      const bad = ids.filter((i) => !found.has(i));
      if (bad.length) {
        const where = owner.projectId ? 'this project' : 'this workspace (workspace level)';
        throw ProblemException.validation(
          'properties',
          `Not properties of ${where}: ${bad.join(', ')}. Nothing was attached.`,
        );
      }
      await this.properties.attach(owner.workspaceId, type.id, ids, tx);
      await this.audit.record(tx, ctx, owner, 'work_item_type', 'properties_attached', type, {
        new: { properties: ids },
      });
      return { properties: ids };
    });
  }

  async detach(ctx: RequestContext, owner: Owner, typeId: string, propertyId: string): Promise<void> {
    await this.gate.transaction(ctx, async (tx) => {
      await this.values.lockForPrune(owner.workspaceId, tx);
      const type = await this.types.getOwned(owner, typeId, tx, true);
      if (!type) throw ProblemException.notFound('Work item type');
      if (!(await this.properties.detach(owner.workspaceId, type.id, propertyId, tx)))
        throw ProblemException.notFound('Property attached to this type');
      const cleared = await this.values.stripProperty(owner.workspaceId, propertyId, tx, type.id);
      await this.audit.record(tx, ctx, owner, 'work_item_type', 'property_detached', type, {
        old: { properties: [propertyId] },
        metadata: { values_removed: cleared },
      });
    });
  }

  /** Reads address the project's roster (imported workspace types included) or workspace types. */
  private async readableType(owner: Owner, typeId: string): Promise<TypeRow> {
    const type = owner.projectId
      ? await this.types.getInProject(owner.workspaceId, owner.projectId, typeId)
      : await this.types.getOwned(owner, typeId);
    if (!type) throw ProblemException.notFound('Work item type');
    return type;
  }
}
