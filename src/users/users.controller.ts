import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, RequestContext } from '../common/auth/request-context';
import { CurrentUserDto } from './users.dto';

@ApiTags('users')
@Controller('api/v2/users')
export class UsersController {
  @Get('me')
  @Authenticated({ scope: 'any-read' })
  @ApiOperation({
    operationId: 'users_me',
    summary: 'Current principal',
    description: 'No fine-grained scope: an API key always reaches it; an OAuth token needs any read scope.',
  })
  @ApiOkResponse({ type: CurrentUserDto })
  me(@Ctx() ctx: RequestContext): CurrentUserDto {
    return {
      id: ctx.principal.userId,
      display_name: ctx.principal.displayName,
      email: ctx.principal.email,
      principal_kind: ctx.principal.kind,
      scopes: ctx.principal.kind === 'oauth' || ctx.principal.kind === 'bot' ? ctx.principal.scopes : [],
    };
  }
}
