import { ApiProperty } from '@nestjs/swagger';

export class CurrentUserDto {
  @ApiProperty({ format: 'uuid', description: 'Same id as member_id on rosters, created_by_id and audit actor_id.' })
  id!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty({ format: 'email' }) email!: string;
  @ApiProperty({ enum: ['oauth', 'api_key', 'other'] }) principal_kind!: string;
  @ApiProperty({ type: [String], description: 'Granted OAuth scopes; [] for API keys, which carry no scope ceiling.' })
  scopes!: string[];
}
