import { Injectable, Param, PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { ProblemException } from '../errors/problem.exception';
import { assertUuid } from './validation';

/** `PROJ-12`: a work item identifier, the form the project-scoped work item routes do not take. */
const WORK_ITEM_IDENTIFIER_RE = /^[A-Za-z][A-Za-z0-9]*-\d+$/;

/** A work item id path value: `PROJ-12` in its place is the 404 of an unknown item (spec), else malformed is 400. */
export function workItemIdOf(value: string, field: string): string {
  if (WORK_ITEM_IDENTIFIER_RE.test(value)) throw ProblemException.notFound('Work item');
  return assertUuid(value, field);
}

@Injectable()
class UuidPipe implements PipeTransform<string, string> {
  constructor(
    private readonly field: string,
    private readonly identifierNotFound: boolean,
  ) {}
  transform(value: string): string {
    // The spec: on work item routes "an identifier such as the project-number form gives 404".
    return this.identifierNotFound ? workItemIdOf(value, this.field) : assertUuid(value, this.field);
  }
}

/**
 * A UUID path parameter; a malformed value is 400 validation_error naming the parameter.
 * `identifierNotFound`: a work item identifier (`PROJ-12`) in its place is 404, as for any unknown item.
 */
export function UuidParam(name: string, opts: { identifierNotFound?: boolean } = {}): ParameterDecorator {
  return Param(name, new UuidPipe(name, opts.identifierNotFound ?? false));
}

/** A work item id path parameter: malformed is 400, an identifier (`PROJ-12`) in its place is 404 (spec). */
export function WorkItemIdParam(name: string): ParameterDecorator {
  return UuidParam(name, { identifierNotFound: true });
}

/** OpenAPI of the workspace slug path parameter (every workspace route; read by the AuthGuard). */
export function ApiSlugParam(): ClassDecorator & MethodDecorator {
  return ApiParam({ name: 'slug', description: 'Workspace slug' });
}

/** OpenAPI of a UUID path parameter (`pk`, `project_id`, `work_item_id`, ...): what UuidParam accepts. */
export function ApiUuidParam(name: string, description?: string): ClassDecorator & MethodDecorator {
  return ApiParam(description === undefined ? { name, format: 'uuid' } : { name, format: 'uuid', description });
}
