import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, IsUUID } from 'class-validator';
import { PROJECT_ROLES, WORKSPACE_ROLES } from '../common/auth/roles';
import { MaxChars } from '../common/http/validation';
import { UserRefDto } from '../users/user-ref';

/** The member's user with ?expand=member (its own schema name kept for generated clients). */
export class MemberUserDto extends UserRefDto {}

/** A membership row: `id` is the membership, `member_id` the user. */
export class MemberDto {
  @ApiProperty({ format: 'uuid', description: 'Membership id (differs per roster).' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The user id (users/me id, created_by_id, audit actor_id).' })
  member_id!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Role slug; an open set: tolerate unknown values.' })
  role!: string | null;
  @ApiPropertyOptional({ type: MemberUserDto, description: 'With ?expand=member.' }) member?: MemberUserDto;
}

export class UpdateWorkspaceMemberDto {
  @ApiProperty({ enum: WORKSPACE_ROLES })
  @IsIn(WORKSPACE_ROLES)
  role!: string;
}

/** `POST /workspaces/{slug}/members/remove/` (the later edition's shape). */
export class RemoveWorkspaceMemberDto {
  @ApiProperty({ format: 'email', description: 'Email of the active workspace member to remove (case-insensitive).' })
  @IsString()
  @IsNotEmpty()
  @MaxChars(320)
  email!: string;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'Accepted for compatibility and ignored: this service has no seats.',
  })
  @IsOptional()
  @IsBoolean()
  remove_seat?: boolean;
}

export class CreateProjectMemberDto {
  @ApiProperty({ format: 'uuid', description: 'User id of an active workspace member.' })
  @IsUUID('all')
  member_id!: string;

  @ApiProperty({ enum: PROJECT_ROLES })
  @IsIn(PROJECT_ROLES)
  role!: string;
}

export class UpdateProjectMemberDto {
  @ApiProperty({ enum: PROJECT_ROLES })
  @IsIn(PROJECT_ROLES)
  role!: string;
}
