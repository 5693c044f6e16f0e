import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { OptionalNotNull } from '../common/http/validation';
import { UserRefDto } from '../users/user-ref';
import { COMMENT_ACCESS } from './comment.entity';

const ACCESS_MESSAGE = `$property must be one of: ${COMMENT_ACCESS.join(', ')}`;

export class CreateCommentDto {
  @ApiProperty({ description: 'Rich text, sanitized; must contain something after sanitizing.' })
  @IsString()
  @IsNotEmpty()
  comment_html!: string;

  @ApiPropertyOptional({ enum: COMMENT_ACCESS, default: 'INTERNAL' })
  @OptionalNotNull()
  @IsIn(COMMENT_ACCESS, { message: ACCESS_MESSAGE })
  access?: string;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateCommentDto {
  @ApiPropertyOptional({ description: 'Replaces the whole body; comment_stripped is re-derived.' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  comment_html?: string;

  @ApiPropertyOptional({ enum: COMMENT_ACCESS })
  @OptionalNotNull()
  @IsIn(COMMENT_ACCESS, { message: ACCESS_MESSAGE })
  access?: string;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class CommentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) work_item_id!: string;
  @ApiProperty() comment_html!: string;
  @ApiProperty({ description: 'Plain text derived from comment_html (read-only); what search matches.' })
  comment_stripped!: string;
  @ApiProperty({ enum: COMMENT_ACCESS }) access!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The author: the caller who created it.' })
  actor_id!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Set on every successful PATCH.' })
  edited_at!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
  @ApiPropertyOptional({
    type: UserRefDto,
    nullable: true,
    description: 'With ?expand=actor: the author; null when the author is no longer a user.',
  })
  actor?: UserRefDto | null;
}
