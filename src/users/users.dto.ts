import { ApiProperty } from '@nestjs/swagger';

export class CurrentUserDto {
  @ApiProperty({ format: 'uuid', description: 'Same id as member_id on rosters, created_by_id and audit actor_id.' })
  id!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty({ format: 'email' }) email!: string;
  @ApiProperty({
    enum: ['oauth', 'api_key', 'bot', 'other'],
    description:
      "`bot`: an app installation's bot user acting with a client-credentials token (scope-capped like `oauth`).",
  })
  principal_kind!: string;
  @ApiProperty({
    type: [String],
    description: 'Granted OAuth scopes (also of a bot token); [] for API keys, which carry no scope ceiling.',
  })
  scopes!: string[];
}
