import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { FeaturesCoreModule } from '../features/features-core.module';
import { CustomFieldsService } from '../custom-fields/custom-fields.service';
import { CustomValuesRepository } from '../custom-fields/custom-values.repository';
import { EffectivePropertiesRepository } from '../custom-fields/effective-properties.repository';
import { PropertyOptionsRepository } from '../work-item-properties/property-options.repository';
import { PropertyOptionsService } from '../work-item-properties/property-options.service';
import {
  ProjectPropertyOptionsController,
  ProjectWorkItemPropertiesController,
} from '../work-item-properties/project-work-item-properties.controller';
import { WorkItemPropertiesRepository } from '../work-item-properties/work-item-properties.repository';
import { WorkItemPropertiesService } from '../work-item-properties/work-item-properties.service';
import {
  WorkspacePropertyOptionsController,
  WorkspaceWorkItemPropertiesController,
} from '../work-item-properties/workspace-work-item-properties.controller';
import { PropertyContextsController } from '../work-item-property-contexts/contexts.controller';
import { ContextsRepository } from '../work-item-property-contexts/contexts.repository';
import { ContextsService } from '../work-item-property-contexts/contexts.service';
import { CatalogAudit } from './catalog-audit';
import { ProjectWorkItemTypesController } from './project-work-item-types.controller';
import { ProjectTypePropertiesController, WorkspaceTypePropertiesController } from './type-properties.controller';
import { TypePropertiesService } from './type-properties.service';
import { TypeSchemaService } from './type-schema.service';
import { TypeModeGate, TypeModeGuard } from './type-surface';
import { WorkItemTypesRepository } from './work-item-types.repository';
import { WorkItemTypesService } from './work-item-types.service';
import { WorkspaceWorkItemTypesController } from './workspace-work-item-types.controller';

/**
 * Work item types, properties, options and contexts on both surfaces (48 operations), the mode
 * gate, and custom_fields of work items (CustomFieldsService, exported for the work items module).
 */
@Module({
  imports: [AuditCoreModule, FeaturesCoreModule],
  controllers: [
    ProjectWorkItemTypesController,
    WorkspaceWorkItemTypesController,
    ProjectTypePropertiesController,
    WorkspaceTypePropertiesController,
    ProjectWorkItemPropertiesController,
    WorkspaceWorkItemPropertiesController,
    ProjectPropertyOptionsController,
    WorkspacePropertyOptionsController,
    PropertyContextsController,
  ],
  providers: [
    TypeModeGuard,
    TypeModeGate,
    CatalogAudit,
    WorkItemTypesRepository,
    WorkItemTypesService,
    TypePropertiesService,
    TypeSchemaService,
    WorkItemPropertiesRepository,
    WorkItemPropertiesService,
    PropertyOptionsRepository,
    PropertyOptionsService,
    ContextsRepository,
    ContextsService,
    CustomValuesRepository,
    EffectivePropertiesRepository,
    CustomFieldsService,
  ],
  exports: [
    CustomFieldsService,
    WorkItemTypesRepository,
    WorkItemTypesService,
    WorkItemPropertiesService,
    PropertyOptionsService,
    TypePropertiesService,
    TypeModeGate,
  ],
})
export class WorkItemTypesModule {}
