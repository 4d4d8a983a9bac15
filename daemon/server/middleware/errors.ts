// The one place where error kinds become status codes and wire bodies.
import type { ServerResponse } from 'node:http';
import { isSvcError, type ErrorKind } from '../../api/errors';
import { supports, type ApiVersion } from '../../api/versions';
import type { Logger } from '../../lib/logger';
import { sendStatus, sendText } from '../http/respond';

const statusByKind: Record<ErrorKind, number> = {
  'invalid-parameter': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'not-modified': 304,
  'not-implemented': 501,
  'not-acceptable': 406,
  unavailable: 503,
  system: 500,
};

export function statusOf(err: unknown): number {
  return isSvcError(err) ? statusByKind[err.kind] : 500;
}

/** Writes an error answer: plain text before API 1.24, `{"message": …}` from 1.24. */
export function writeError(res: ServerResponse, version: ApiVersion, err: unknown, log: Logger): void {
  const status = statusOf(err);
  const message = err instanceof Error ? err.message : String(err);
  // A 501 is a deliberate answer (a feature svcd does not have), not a failure to look into.
  if (status >= 500 && status !== 501)
    log.error('request failed', { error: err instanceof Error ? (err.stack ?? message) : message });
  if (res.headersSent) {
    // A stream has started: the status is gone, so the connection is cut to signal failure.
    res.destroy();
    return;
  }
  if (status === 304) return sendStatus(res, 304);
  // As dockerd writes them: its JSON encoder ends the body with a newline, and its plain-text
  // errors forbid content sniffing.
  if (supports(version, 'jsonErrors'))
    return sendText(res, status, `${JSON.stringify({ message })}\n`, 'application/json');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  sendText(res, status, `${message}\n`);
}
