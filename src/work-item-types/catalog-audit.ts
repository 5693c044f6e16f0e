import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { RequestContext } from '../common/auth/request-context';
import { Queryable } from '../common/pagination/sql-params';
import { Owner } from './work-item-types.repository';

export type CatalogTarget =
  'work_item_type' | 'work_item_property' | 'work_item_property_option' | 'work_item_property_context';

/**
 * Audit entries of the type and property catalogue (category `settings`), written in the transaction
 * of the change. Event names: `<target>.<action>`, e.g. `work_item_type.created`.
 */
@Injectable()
export class CatalogAudit {
  constructor(private readonly audit: AuditService) {}

  record(
    tx: Queryable,
    ctx: RequestContext,
    owner: Owner,
    target: CatalogTarget,
    action: string,
    subject: { id: string; name: string },
    values: { old?: unknown; new?: unknown; metadata?: Record<string, unknown> } = {},
  ): Promise<void> {
    return this.audit.record(tx, ctx, {
      event_name: `${target}.${action}`,
      category: 'settings',
      workspace_id: owner.workspaceId,
      project_id: owner.projectId,
      target_type: target,
      target_id: subject.id,
      target_display_name: subject.name,
      old_value: values.old ?? null,
      new_value: values.new ?? null,
      metadata: { surface: owner.projectId ? 'project' : 'workspace', ...(values.metadata ?? {}) },
    });
  }
}
