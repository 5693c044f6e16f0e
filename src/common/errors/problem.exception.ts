import { ErrorCode, ERROR_STATUS } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * The one domain exception of the service. Services throw it; the global ProblemFilter
 * turns it into an application/problem+json response.
 */
export class ProblemException extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    /** Extra members of the body (a bulk write's `results`). */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(detail);
    this.status = ERROR_STATUS[code];
  }

  /** 405 with the methods the path does allow (the 404 handler's registry, or a literal route's). */
  static methodNotAllowed(method: string, allowed: string[]): ProblemException {
    return new ProblemException(
      ErrorCode.MethodNotAllowed,
      `Method ${method} is not allowed on this path.`,
      undefined,
      { Allow: allowed.join(', ') },
    );
  }

  static validation(field: string, message: string): ProblemException {
    return new ProblemException(ErrorCode.ValidationError, `${field}: ${message}`, [{ field, message }]);
  }

  static validationMany(errors: FieldError[]): ProblemException {
    const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return new ProblemException(ErrorCode.ValidationError, detail || 'Invalid request.', errors);
  }

  static notFound(what = 'Resource'): ProblemException {
    return new ProblemException(ErrorCode.ResourceNotFound, `${what} not found.`);
  }

  static conflict(detail: string): ProblemException {
    return new ProblemException(ErrorCode.Conflict, detail);
  }

  static forbidden(detail = 'You do not have permission to perform this action.'): ProblemException {
    return new ProblemException(ErrorCode.Forbidden, detail);
  }

  static unsupportedMediaType(): ProblemException {
    return new ProblemException(ErrorCode.UnsupportedMediaType, 'Send JSON with Content-Type: application/json.');
  }

  static invalidJson(): ProblemException {
    return ProblemException.validation('body', 'The request body is not valid JSON.');
  }

  /** RFC 9110 asks a 401 to name a scheme: the OAuth bearer token (API keys go in X-Api-Key, no registered scheme). */
  static unauthorized(detail = 'Authentication credentials were missing or invalid.'): ProblemException {
    return new ProblemException(ErrorCode.Unauthorized, detail, undefined, {
      'WWW-Authenticate': 'Bearer realm="api"',
    });
  }
}
