import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { RequestContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CustomValuesRepository } from '../custom-fields/custom-values.repository';
import { ContextsRepository } from '../work-item-property-contexts/contexts.repository';
import { CatalogAudit } from '../work-item-types/catalog-audit';
import { cleanName } from '../common/names/names';
import { Owner } from '../work-item-types/work-item-types.repository';
import { PropertyOptionsRepository } from './property-options.repository';
import { CreatePropertyOptionDto, PropertyOptionDto, UpdatePropertyOptionDto } from './property-options.dto';
import { auditOption, mapOption, OptionRow, PropertyRow } from './work-item-properties.mapper';
import { WorkItemPropertiesService } from './work-item-properties.service';
import { TypeModeGate } from '../work-item-types/type-surface';

/**
 * Options of OPTION properties on both surfaces. sort_order is never writable: options are appended.
 * At most one default per property: the project surface hands the flag over (the previous default is
 * cleared), the workspace surface refuses a second default with 400. Options created on the
 * workspace surface are offered in the property's all-projects/all-types context.
 */
@Injectable()
export class PropertyOptionsService {
  constructor(
    private readonly ds: DataSource,
    private readonly gate: TypeModeGate,
    private readonly repo: PropertyOptionsRepository,
    private readonly properties: WorkItemPropertiesService,
    private readonly contexts: ContextsRepository,
    private readonly values: CustomValuesRepository,
    private readonly audit: CatalogAudit,
  ) {}

  /** Project surface: a property of another project is 404. Workspace surface: anything but a workspace property is an empty page. */
  async list(owner: Owner, propertyId: string, q: ListQuery) {
    if (owner.projectId) await this.properties.mustGet(owner, propertyId, this.ds);
    const { rows, envelope } = await this.repo.list(owner.workspaceId, propertyId, q, !owner.projectId);
    return envelope(rows.map(mapOption));
  }

  async get(owner: Owner, propertyId: string, id: string): Promise<PropertyOptionDto> {
    await this.properties.mustGet(owner, propertyId, this.ds);
    return mapOption(await this.mustGet(owner, propertyId, id, this.ds));
  }

  async create(
    ctx: RequestContext,
    owner: Owner,
    propertyId: string,
    dto: CreatePropertyOptionDto,
  ): Promise<PropertyOptionDto> {
    return this.gate.transaction(ctx, async (tx) => {
      const property = await this.properties.mustGet(owner, propertyId, tx, true);
      if (property.property_type !== 'OPTION') {
        throw ProblemException.validation(
          'property_id',
          `Only OPTION properties have options; this one is ${property.property_type}.`,
        );
      }
      const name = cleanName(dto.name);
      if (dto.is_default) await this.claimDefault(owner, property, null, tx);
      const [row] = await this.repo.insertMany(
        owner.workspaceId,
        property.id,
        [
          {
            name,
            description: dto.description ?? '',
            is_default: dto.is_default ?? false,
            external_id: dto.external_id ?? null,
            external_source: dto.external_source ?? null,
          },
        ],
        ctx.principal.userId,
        tx,
      );
      if (!owner.projectId) {
        const allAll = await this.contexts.allAll(owner.workspaceId, property.id, tx);
        if (allAll) {
          await this.contexts.appendOptions(
            owner.workspaceId,
            allAll.id,
            [{ option_id: row.id, is_default: row.is_default }],
            tx,
          );
          if (row.is_default) await this.contexts.setContextDefault(owner.workspaceId, allAll.id, row.id, true, tx);
        }
      }
      await this.audit.record(
        tx,
        ctx,
        owner,
        'work_item_property_option',
        'created',
        { id: row.id, name: row.name },
        {
          new: auditOption(row),
          metadata: { property_id: property.id },
        },
      );
      return mapOption(row);
    });
  }

  async update(
    ctx: RequestContext,
    owner: Owner,
    propertyId: string,
    id: string,
    dto: UpdatePropertyOptionDto,
  ): Promise<PropertyOptionDto> {
    return this.gate.transaction(ctx, async (tx) => {
      const property = await this.properties.mustGet(owner, propertyId, tx, true);
      const old = await this.mustGet(owner, property.id, id, tx, true);
      if (dto.is_default === true && !old.is_default) await this.claimDefault(owner, property, old.id, tx);
      const row = await this.repo.update(
        owner.workspaceId,
        old.id,
        {
          name: dto.name === undefined ? undefined : cleanName(dto.name),
          description: dto.description,
          is_default: dto.is_default,
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        tx,
      );
      if (!owner.projectId && dto.is_default !== undefined && dto.is_default !== old.is_default) {
        const allAll = await this.contexts.allAll(owner.workspaceId, property.id, tx);
        if (allAll) await this.contexts.setContextDefault(owner.workspaceId, allAll.id, row.id, row.is_default, tx);
      }
      const before = auditOption(old);
      const after = auditOption(row);
      const changed = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      if (changed.length) {
        await this.audit.record(
          tx,
          ctx,
          owner,
          'work_item_property_option',
          'updated',
          { id: row.id, name: row.name },
          {
            old: Object.fromEntries(changed.map((k) => [k, before[k]])),
            new: Object.fromEntries(changed.map((k) => [k, after[k]])),
            metadata: { property_id: property.id, changed_fields: changed },
          },
        );
      }
      return mapOption(row);
    });
  }

  /** Permanent: the option leaves every context, every default_value (property and contexts) and every work item value holding it. */
  async remove(ctx: RequestContext, owner: Owner, propertyId: string, id: string): Promise<void> {
    await this.gate.transaction(ctx, async (tx) => {
      await this.values.lockForPrune(owner.workspaceId, tx);
      const property = await this.properties.mustGet(owner, propertyId, tx, true);
      const row = await this.mustGet(owner, property.id, id, tx, true);
      const defaultsPruned = await this.repo.softDelete(owner.workspaceId, [row.id], tx);
      const cleared = await this.values.stripOptions(owner.workspaceId, property.id, [row.id], tx);
      await this.audit.record(
        tx,
        ctx,
        owner,
        'work_item_property_option',
        'deleted',
        { id: row.id, name: row.name },
        {
          old: auditOption(row),
          metadata: { property_id: property.id, values_changed: cleared, defaults_pruned: defaultsPruned },
        },
      );
    });
  }

  private async claimDefault(
    owner: Owner,
    property: PropertyRow,
    optionId: string | null,
    tx: EntityManager,
  ): Promise<void> {
    const current = await this.repo.currentDefault(owner.workspaceId, property.id, tx);
    if (!current || current.id === optionId) return;
    if (!owner.projectId) {
      throw ProblemException.validation(
        'is_default',
        `"${current.name}" is already the default option of this property; clear it first (there is no automatic hand-off).`,
      );
    }
    await this.repo.clearDefault(owner.workspaceId, property.id, optionId, tx);
  }

  private async mustGet(
    owner: Owner,
    propertyId: string,
    id: string,
    db: EntityManager | DataSource,
    forUpdate = false,
  ): Promise<OptionRow> {
    const row = await this.repo.get(owner.workspaceId, propertyId, id, db, forUpdate);
    if (!row) throw ProblemException.notFound('Property option');
    return row;
  }
}
