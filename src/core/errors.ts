/**
 * Typed domain errors. Each carries the HTTP status it becomes (spec section 7, plus 502 for an
 * upstream such as the identity provider failing), so the HTTP layer maps them in one place and
 * deciders never know about HTTP.
 */
export class DomainError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 412 | 413 | 422 | 429 | 502,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(message = "Not found.") {
    super(404, message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = "Forbidden.") {
    super(403, message);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = "Unauthenticated.") {
    super(401, message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super(409, message);
  }
}

/** A condition the request set (`If-Match`) is false: what it was made on has changed since (RFC 9110 13.1.1). */
export class PreconditionFailedError extends DomainError {
  constructor(message: string) {
    super(412, message);
  }
}

/** A rule on the input that only the domain can check (uniqueness, state). `errors` is keyed by field. */
export class ValidationFailedError extends DomainError {
  constructor(
    readonly errors: Record<string, string[]>,
    message?: string,
  ) {
    super(422, message ?? Object.values(errors)[0]?.[0] ?? "The given data was invalid.");
  }
}

export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(429, message);
  }
}
