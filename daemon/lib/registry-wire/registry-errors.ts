// Turning Registry API error answers into the engine's typed errors, worded as Docker words them
// (`manifest unknown: manifest unknown`, `unauthorized: authentication required`).
import {
  ForbiddenError,
  NotFoundError,
  SvcError,
  SystemError,
  UnauthorizedError,
  UnavailableError,
  InvalidParameterError,
} from '../../api/errors';

export interface RegistryErrorDetail {
  code: string;
  message: string;
  detail?: unknown;
}

/** `MANIFEST_UNKNOWN` + `manifest unknown` → `manifest unknown: manifest unknown`, as errcode does. */
export function formatRegistryErrors(errors: RegistryErrorDetail[]): string {
  return errors.map((e) => `${e.code.toLowerCase().replace(/_/g, ' ')}: ${e.message}`).join(', ');
}

/** What is read of an error answer. */
export interface ErrorAnswer {
  status: number;
  statusText: string;
  text(): Promise<string>;
}

export async function readRegistryErrors(res: ErrorAnswer): Promise<RegistryErrorDetail[]> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { errors?: RegistryErrorDetail[] };
    if (Array.isArray(body.errors) && body.errors.length > 0) {
      return body.errors.map((e) => ({
        code: String(e.code ?? 'UNKNOWN'),
        message: String(e.message ?? ''),
        detail: e.detail,
      }));
    }
  } catch {}
  return [{ code: 'UNKNOWN', message: text.trim().slice(0, 200) || `${res.status} ${res.statusText}` }];
}

/** The typed error for a failed registry answer; `context` prefixes the message. */
export async function registryError(res: ErrorAnswer, context: string): Promise<SvcError> {
  const errors = await readRegistryErrors(res);
  const message = `${context}: ${formatRegistryErrors(errors)}`;
  switch (res.status) {
    case 400:
    case 405:
    case 416:
      return new InvalidParameterError(message);
    case 401:
      return new UnauthorizedError(message);
    case 403:
      return new ForbiddenError(message);
    case 404:
      return new NotFoundError(message);
    case 429:
    case 502:
    case 503:
    case 504:
      return new UnavailableError(message);
    default:
      return new SystemError(message);
  }
}
