import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth/authenticated.decorator';
import { apiDocument } from '../common/openapi/openapi';
import { V1Returns } from './v1-responses';

@ApiTags('v1 schema')
@Controller('api/v1/schema')
export class V1SchemaController {
  @Get()
  @Public()
  @V1Returns({ schema: { type: 'object' } })
  @ApiOperation({ operationId: 'v1_schema_get', summary: 'The OpenAPI document of API v1', security: [] })
  @ApiOkResponse({ description: 'OpenAPI 3.1 document', schema: { type: 'object' } })
  get() {
    return apiDocument('v1');
  }
}
