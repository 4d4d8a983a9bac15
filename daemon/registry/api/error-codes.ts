// The catalogue of registry error codes: each code with its HTTP status and message, as data.
// Handlers throw RegistryError; the server writes it as {errors:[{code,message,detail}]}.
import { SvcError, type ErrorKind } from '../../api/errors';

export const errorCodes = {
  BLOB_UNKNOWN: { status: 404, message: 'blob unknown to registry' },
  BLOB_UPLOAD_INVALID: { status: 400, message: 'blob upload invalid' },
  BLOB_UPLOAD_UNKNOWN: { status: 404, message: 'blob upload unknown to registry' },
  DIGEST_INVALID: { status: 400, message: 'provided digest did not match uploaded content' },
  MANIFEST_BLOB_UNKNOWN: { status: 400, message: 'manifest blob unknown to registry' },
  MANIFEST_INVALID: { status: 400, message: 'manifest invalid' },
  MANIFEST_UNKNOWN: { status: 404, message: 'manifest unknown' },
  MANIFEST_UNVERIFIED: { status: 400, message: 'manifest failed signature verification' },
  NAME_INVALID: { status: 400, message: 'invalid repository name' },
  NAME_UNKNOWN: { status: 404, message: 'repository name not known to registry' },
  PAGINATION_NUMBER_INVALID: { status: 400, message: 'invalid number of results requested' },
  RANGE_INVALID: { status: 416, message: 'invalid content range' },
  SIZE_INVALID: { status: 400, message: 'provided length did not match content length' },
  TAG_INVALID: { status: 400, message: 'manifest tag did not match URI' },
  UNAUTHORIZED: { status: 401, message: 'authentication required' },
  DENIED: { status: 403, message: 'requested access to the resource is denied' },
  UNSUPPORTED: { status: 405, message: 'The operation is unsupported.' },
  TOOMANYREQUESTS: { status: 429, message: 'too many requests' },
  UNAVAILABLE: { status: 503, message: 'service unavailable' },
  UNKNOWN: { status: 500, message: 'unknown error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorEntry {
  code: ErrorCode;
  message: string;
  detail?: unknown;
}

function kindOf(status: number): ErrorKind {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'system';
  return 'invalid-parameter';
}

/** One or more catalogue errors answered together with a single status. */
export class RegistryError extends SvcError {
  readonly entries: ErrorEntry[];
  readonly status: number;

  constructor(code: ErrorCode, message?: string, detail?: unknown, status?: number) {
    const entry = errorEntry(code, detail, message);
    const s = status ?? errorCodes[code].status;
    super(kindOf(s), entry.message);
    this.entries = [entry];
    this.status = s;
  }

  /** Several errors in one answer (e.g. one per unknown blob of a manifest). */
  static many(entries: ErrorEntry[], status: number): RegistryError {
    const err = new RegistryError(entries[0].code, entries[0].message, entries[0].detail, status);
    err.entries.push(...entries.slice(1));
    return err;
  }
}

export function errorEntry(code: ErrorCode, detail?: unknown, message?: string): ErrorEntry {
  const entry: ErrorEntry = { code, message: message ?? errorCodes[code].message };
  if (detail !== undefined) entry.detail = detail;
  return entry;
}

/** The store's disk, or the registry user's quota, is full. */
export function isNoSpace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * A write that did not fit. Distribution answers 500 UNKNOWN; we keep the code every client
 * knows but answer 507 Insufficient Storage (RFC 4918) naming the cause, so a client or the
 * desktop can tell "free space on the registry, then push again" from a bug.
 */
export function noSpaceError(): RegistryError {
  return new RegistryError(
    'UNKNOWN',
    "no space left on device: the registry's storage is full",
    undefined,
    507,
  );
}
