// The one place where containerd's gRPC status codes become the daemon's typed errors.
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import {
  ConflictError,
  InvalidParameterError,
  NotFoundError,
  SvcError,
  SystemError,
  UnavailableError,
} from '../../api/errors';

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number';
}

/** Translates an error thrown by a gRPC call; `what` names the operation for the message. */
export function fromGrpcError(err: unknown, what: string): SvcError {
  if (err instanceof SvcError) return err;
  if (!isServiceError(err)) return new SystemError(`containerd ${what}: ${String(err)}`, { cause: err });
  // containerd puts the useful text in `details`; `message` repeats it behind "CODE: ".
  const message = `containerd ${what}: ${err.details || err.message}`;
  switch (err.code) {
    case Status.NOT_FOUND:
      return new NotFoundError(message, { cause: err });
    case Status.ALREADY_EXISTS:
    case Status.FAILED_PRECONDITION:
      return new ConflictError(message, { cause: err });
    case Status.INVALID_ARGUMENT:
      return new InvalidParameterError(message, { cause: err });
    case Status.UNAVAILABLE:
      return new UnavailableError(message, { cause: err });
    default:
      return new SystemError(message, { cause: err });
  }
}

/** The gRPC status code behind a translated error, for the few callers that must tell codes apart. */
export function grpcCode(err: unknown): Status | undefined {
  const cause = err instanceof SvcError ? err.cause : err;
  return isServiceError(cause) ? cause.code : undefined;
}

/** Whether containerd refused because the object exists already (a 409 of other causes is not). */
export function isAlreadyExists(err: unknown): boolean {
  return grpcCode(err) === Status.ALREADY_EXISTS;
}

/** The runtime's own words behind a failed call, without the operation: what dockerd shows. */
export function runtimeMessage(err: unknown): string {
  const cause = err instanceof SvcError ? err.cause : err;
  if (isServiceError(cause)) return cause.details || cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Whether a call on a task's process failed because that process has just exited: containerd no
 * longer knows it, or its shim closed the connection on its way out.
 */
export function isExitedProcess(err: unknown): boolean {
  if (grpcCode(err) === Status.NOT_FOUND) return true;
  return /ttrpc: closed|process already finished/.test(runtimeMessage(err));
}
