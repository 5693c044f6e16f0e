import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches } from 'class-validator';
import { Nullable, OptionalNotNull } from '../common/http/validation';

/** Hex colour: `#RGB` or `#RRGGBB` (case-insensitive). Shared by states and labels. */
export const HEX_COLOR_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const MESSAGE = '$property must be a hex colour such as #3A3A3A or #FFF';
const DOC = { type: String, pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', example: '#3A3A3A', maxLength: 255 };

/** A hex colour that must be sent (create of a state). */
export function RequiredColorField(): PropertyDecorator {
  return applyDecorators(ApiProperty(DOC), IsString(), IsNotEmpty(), Matches(HEX_COLOR_RE, { message: MESSAGE }));
}

/** A hex colour that may be omitted but not cleared (PATCH of a state). */
export function OptionalColorField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional(DOC),
    OptionalNotNull(),
    IsString(),
    Matches(HEX_COLOR_RE, { message: MESSAGE }),
  );
}

/** A hex colour that may be omitted or cleared with null (labels). */
export function NullableColorField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ ...DOC, nullable: true }),
    Nullable(),
    IsString(),
    Matches(HEX_COLOR_RE, { message: MESSAGE }),
  );
}
