// Errors classified by behaviour, as moby's errdefs are. Domain code throws these; one mapper in
// daemon/server/middleware/errors.ts turns a kind into a status code and a wire body.

export type ErrorKind =
  | 'invalid-parameter'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'not-modified'
  | 'not-implemented'
  | 'not-acceptable'
  | 'unavailable'
  | 'system';

export class SvcError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class InvalidParameterError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-parameter', message, options);
  }
}

export class UnauthorizedError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unauthorized', message, options);
  }
}

export class ForbiddenError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('forbidden', message, options);
  }
}

export class NotFoundError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('not-found', message, options);
  }
}

export class ConflictError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('conflict', message, options);
  }
}

/** Not an error for the client: the request changed nothing (304). */
export class NotModifiedError extends SvcError {
  constructor(message = 'not modified') {
    super('not-modified', message);
  }
}

/** A feature this build does not have: answered 501 with a clear message, never faked. */
export class NotImplementedError extends SvcError {
  constructor(message: string) {
    super('not-implemented', message);
  }
}

/** A request the engine's state rules out for good, as swarm requests on an engine in no swarm. */
export class NotAcceptableError extends SvcError {
  constructor(message: string) {
    super('not-acceptable', message);
  }
}

export class UnavailableError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

export class SystemError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('system', message, options);
  }
}

export function isSvcError(err: unknown): err is SvcError {
  return err instanceof SvcError;
}
