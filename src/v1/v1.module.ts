import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG } from '../common/config/config';
import type { AppConfig } from '../common/config/config';
import { CommentsModule } from '../comments/comments.module';
import { CyclesModule } from '../cycles/cycles.module';
import { EstimatesModule } from '../estimates/estimates.module';
import { FeaturesCoreModule } from '../features/features-core.module';
import { FeaturesModule } from '../features/features.module';
import { WorkflowsModule } from '../workflows/workflows.module';
import { WorkItemTypesModule } from '../work-item-types/work-item-types.module';
import { LabelsModule } from '../labels/labels.module';
import { MembersModule } from '../members/members.module';
import { ModulesModule } from '../modules/modules.module';
import { ProjectsModule } from '../projects/projects.module';
import { StatesModule } from '../states/states.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { WorkItemActivitiesModule } from '../work-item-activities/work-item-activities.module';
import { WorkItemLinksModule } from '../work-item-links/work-item-links.module';
import { WorkItemRelationsModule } from '../work-item-relations/work-item-relations.module';
import { V1CommentsController } from './comments.controller';
import { V1CycleArchiveController, V1ModuleArchiveController } from './cycle-module-archives.controller';
import { V1EstimatesController } from './estimates.controller';
import {
  V1CycleIssuesController,
  V1CycleTransferController,
  V1ModuleIssuesController,
} from './cycle-module-issues.controller';
import { V1MembersController, V1UsersController } from './members.controller';
import {
  V1CyclesController,
  V1LabelsController,
  V1ModulesController,
  V1StatesController,
  V1WorkItemPropertiesController,
  V1WorkItemTypesController,
} from './project-resources';
import { V1ProjectsController } from './projects.controller';
import { registerApiDocument } from '../common/openapi/openapi';
import { V1SchemaController } from './schema.controller';
import { installV1Edge } from './v1-edge';
import { buildV1OpenApi } from './v1-openapi';
import { V1RecordsRepository } from './v1-records.repository';
import { V1Shaper } from './v1-shaper';
import { V1Transaction } from './v1-transaction';
import { V1WorkItemsController } from './work-items.controller';
import { V1WorkflowsController } from './workflows.controller';
import { V1WorkItemActivitiesController } from './work-item-activities.controller';
import { V1WorkItemLinksController } from './work-item-links.controller';
import { V1WorkItemRelationsController } from './work-item-relations.controller';
import {
  V1WorkItemCustomRelationsController,
  V1WorkItemDependenciesController,
} from './work-item-dependencies.controller';
import { V1RelationDefinitionsController } from './relation-definitions.controller';
import { V1PropertyValuesController } from './property-values.controller';
import { V1LiteListsController } from './lite-lists.controller';
import { V1ProjectTypeLinksController, V1WorkspaceTypePropertiesController } from './type-links.controller';
import {
  V1PropertyOptionsController,
  V1TypeProperties,
  V1TypePropertiesController,
  V1WorkspacePropertyOptionsController,
  V1WorkspaceWorkItemPropertiesController,
  V1WorkspaceWorkItemTypesController,
} from './type-resources';
import { V1WorkItemShaper } from './work-items.mapper';

/**
 * API v1 in maintenance mode (README "Versions"): thin controllers over the v2 services, mapping requests and
 * responses to v1's shapes. Rules, guards, the rate-limit budget and the audit trail are v2's own. Imported only
 * when API_V1_ENABLED is on.
 */
@Module({
  imports: [
    ProjectsModule,
    MembersModule,
    StatesModule,
    LabelsModule,
    CyclesModule,
    ModulesModule,
    WorkItemsModule,
    CommentsModule,
    FeaturesModule,
    FeaturesCoreModule,
    EstimatesModule,
    WorkflowsModule,
    WorkItemTypesModule,
    WorkItemLinksModule,
    WorkItemRelationsModule,
    WorkItemActivitiesModule,
  ],
  controllers: [
    V1SchemaController,
    V1UsersController,
    V1MembersController,
    V1ProjectsController,
    V1StatesController,
    V1LabelsController,
    V1CyclesController,
    V1CycleIssuesController,
    V1CycleTransferController,
    V1CycleArchiveController,
    V1ModulesController,
    V1ModuleIssuesController,
    V1ModuleArchiveController,
    V1WorkItemsController,
    V1CommentsController,
    V1EstimatesController,
    V1WorkflowsController,
    V1WorkItemTypesController,
    V1WorkItemPropertiesController,
    V1WorkItemLinksController,
    V1WorkItemRelationsController,
    V1WorkItemActivitiesController,
    V1WorkItemDependenciesController,
    V1WorkItemCustomRelationsController,
    V1RelationDefinitionsController,
    V1ProjectTypeLinksController,
    V1TypePropertiesController,
    V1PropertyOptionsController,
    V1WorkspaceWorkItemTypesController,
    V1WorkspaceWorkItemPropertiesController,
    V1WorkspacePropertyOptionsController,
    V1WorkspaceTypePropertiesController,
    V1PropertyValuesController,
    V1LiteListsController,
  ],
  providers: [V1RecordsRepository, V1Shaper, V1WorkItemShaper, V1Transaction, V1TypeProperties],
})
export class V1Module implements OnModuleInit {
  constructor(
    private readonly adapter: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  onModuleInit(): void {
    installV1Edge(this.adapter.httpAdapter.getInstance<FastifyInstance>(), this.cfg.v1);
  }
}

// v1's document, built on first use (its schema route, its Swagger UI) when the module is served (API_V1_ENABLED),
// at /api/v1/schema/.
registerApiDocument({
  name: 'v1',
  module: V1Module,
  url: '/api/v1/schema/',
  build: (app, baseUrl, v2) => buildV1OpenApi(app, baseUrl, v2, V1Module),
});
