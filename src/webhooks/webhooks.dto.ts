import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsString, IsUrl } from 'class-validator';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { WEBHOOK_SCOPE_VALUES } from './webhook-events';

const URL_RULE = { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true };
const URL_MESSAGE = '$property must be an absolute http or https URL';
const SCOPES_MESSAGE = `each value in $property must be *, a family pattern (workitem.*) or an event name (workitem.created)`;
export const WEBHOOK_CONTENT_TYPES = ['application/json'] as const;
export const WEBHOOK_VERSIONS = ['v2'] as const;

const SCOPES_DOC: ApiPropertyOptions = {
  type: [String],
  description:
    'The events this webhook receives: `*` for all, a family (`project.*`, `cycle.*`, `module.*`, `workitem.*`, ' +
    '`workitem.comment.*`, `workitem.link.*`, `workitem.relation.*`, `workitem.dependency.*`) or single events ' +
    '(`workitem.created`). Default `["*"]`.',
  example: ['workitem.*', 'workitem.comment.created'],
};

class WebhookFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 255 })
  @Nullable()
  @IsString()
  @MaxChars(255)
  name?: string | null;

  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({ enum: WEBHOOK_CONTENT_TYPES, default: 'application/json' })
  @OptionalNotNull()
  @IsIn(WEBHOOK_CONTENT_TYPES, { message: '$property must be application/json' })
  content_type?: string;

  @ApiPropertyOptional({ ...SCOPES_DOC, maxItems: 64 })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(64)
  @IsIn(WEBHOOK_SCOPE_VALUES, { each: true, message: SCOPES_MESSAGE })
  scopes?: string[];

  @ApiPropertyOptional({ enum: WEBHOOK_VERSIONS, default: 'v2', description: 'Payload version; only v2.' })
  @OptionalNotNull()
  @IsIn(WEBHOOK_VERSIONS, { message: '$property must be v2' })
  version?: string;
}

export class CreateWebhookDto extends WebhookFieldsDto {
  @ApiProperty({
    maxLength: 2048,
    description: 'Where events are POSTed (http or https). Private, loopback and link-local addresses are refused.',
  })
  @IsString()
  @MaxChars(2048)
  @IsUrl(URL_RULE, { message: URL_MESSAGE })
  url!: string;
}

export class UpdateWebhookDto extends WebhookFieldsDto {
  @ApiPropertyOptional({ maxLength: 2048 })
  @OptionalNotNull()
  @IsString()
  @MaxChars(2048)
  @IsUrl(URL_RULE, { message: URL_MESSAGE })
  url?: string;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty() url!: string;
  @ApiProperty({ description: 'false when turned off, or disabled by the service after failing for 24 h.' })
  is_active!: boolean;
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES }) content_type!: string;
  @ApiProperty(SCOPES_DOC) scopes!: string[];
  @ApiProperty({ enum: WEBHOOK_VERSIONS }) version!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}

export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({
    description:
      'The signing secret, returned only by create and regenerate: store it now. Deliveries carry ' +
      '`X-Plane-Signature` (hex HMAC-SHA256 of the body) and `Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`.',
  })
  secret_key!: string;
}

export class WebhookLogDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) webhook_id!: string;
  @ApiProperty({ format: 'uuid', description: 'The delivery (X-Plane-Delivery); its retries share it.' })
  delivery_id!: string;
  @ApiProperty({ format: 'uuid', description: 'The event (payload event_id), the same for every webhook.' })
  event_id!: string;
  @ApiProperty({ description: 'The event name, e.g. workitem.created.' }) event_type!: string;
  @ApiProperty({ type: String, nullable: true }) request_method!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'JSON of the headers sent.' })
  request_headers!: string | null;
  @ApiProperty({ type: String, nullable: true }) request_body!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'HTTP status answered, as text; null without an answer.' })
  response_status!: string | null;
  @ApiProperty({ type: String, nullable: true }) response_headers!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The first 1 KB of the answer.' })
  response_body!: string | null;
  @ApiProperty({ enum: ['delivered', 'retry', 'failed', 'refused'], description: 'What this attempt led to.' })
  status_text!: string;
  @ApiProperty({
    description: 'Why the attempt failed (network error, timeout, status, refused address); empty on success.',
  })
  error_message!: string;
  @ApiProperty({ type: Number, nullable: true }) duration_ms!: number | null;
  @ApiProperty({ description: 'Attempts before this one for the same delivery (0 for the first).' })
  retry_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
