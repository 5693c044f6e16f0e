import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/authenticated.decorator';
import { currentOpenApi } from './openapi';
import { ApiProblemResponses } from './problem-responses';

@ApiTags('schema')
@Controller('api/v2/schema')
export class SchemaController {
  @Get()
  @Public()
  @ApiOperation({ operationId: 'schema_get', summary: 'The OpenAPI document of this service', security: [] })
  @ApiOkResponse({ description: 'OpenAPI 3 document', schema: { type: 'object' } })
  // Public, but counted against the client address's rate-limit budget like any request.
  @ApiProblemResponses(429)
  get() {
    return currentOpenApi();
  }
}
