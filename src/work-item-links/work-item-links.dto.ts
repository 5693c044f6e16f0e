import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, IsUrl } from 'class-validator';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';

export const URL_MAX = 2048;
const URL_RULE = { require_protocol: true, protocols: ['http', 'https'], require_tld: false, require_host: true };
const URL_MESSAGE = '$property must be an absolute http or https URL';

export class CreateWorkItemLinkDto {
  @ApiProperty({ format: 'uri', maxLength: URL_MAX, description: 'Absolute http(s) URL; unique per work item (409).' })
  @IsString()
  @MaxChars(URL_MAX)
  @IsUrl(URL_RULE, { message: URL_MESSAGE })
  url!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 255 })
  @Nullable()
  @IsString()
  @MaxChars(255)
  title?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Opaque object stored and returned unchanged (default {}).',
  })
  @OptionalNotNull()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class UpdateWorkItemLinkDto {
  @ApiPropertyOptional({ format: 'uri', maxLength: URL_MAX })
  @OptionalNotNull()
  @IsString()
  @MaxChars(URL_MAX)
  @IsUrl(URL_RULE, { message: URL_MESSAGE })
  url?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 255, description: 'null clears it.' })
  @Nullable()
  @IsString()
  @MaxChars(255)
  title?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the whole object.' })
  @OptionalNotNull()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class WorkItemLinkDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) work_item_id!: string;
  @ApiProperty({ format: 'uri' }) url!: string;
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}
