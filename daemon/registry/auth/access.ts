// What a request needs and what a caller is granted: resource scopes as in the token protocol,
// e.g. repository:library/busybox:pull,push or registry:catalog:*.
import type { IncomingMessage } from 'node:http';
import { RegistryError, type ErrorCode } from '../api/error-codes';

export interface AccessItem {
  type: 'repository' | 'registry';
  name: string;
  actions: string[];
}

export interface AuthResult {
  /** The authenticated account; undefined for anonymous callers. */
  account?: string;
  allows(item: AccessItem): boolean;
}

export interface Authorizer {
  /** Resolves when every item is granted; otherwise throws an AuthError carrying its challenge. */
  authorize(req: IncomingMessage, needed: AccessItem[], baseUrl: string): Promise<AuthResult>;
}

/** An auth failure answered with a WWW-Authenticate challenge. */
export class AuthError extends RegistryError {
  constructor(
    code: Extract<ErrorCode, 'UNAUTHORIZED' | 'DENIED'>,
    readonly challenge: string | undefined,
    message?: string,
    detail?: unknown,
  ) {
    super(code, message, detail);
  }
}

export function formatScope(item: AccessItem): string {
  return `${item.type}:${item.name}:${item.actions.join(',')}`;
}

/** Parses `type:name:actions` (the name itself may contain a colon-free host:port prefix). */
export function parseScope(scope: string): AccessItem | undefined {
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  if (first < 0 || last === first) return undefined;
  const type = scope.slice(0, first);
  if (type !== 'repository' && type !== 'registry') return undefined;
  return {
    type,
    name: scope.slice(first + 1, last),
    actions: scope
      .slice(last + 1)
      .split(',')
      .filter(Boolean),
  };
}

export function covers(granted: AccessItem[], item: AccessItem): boolean {
  return item.actions.every((action) =>
    granted.some(
      (g) =>
        g.type === item.type &&
        g.name === item.name &&
        (g.actions.includes(action) || g.actions.includes('*')),
    ),
  );
}

/** Decodes `Authorization: Basic …`; undefined when absent or malformed. */
export function basicCredentials(req: IncomingMessage): { user: string; password: string } | undefined {
  const header = req.headers.authorization;
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export const allowAll: AuthResult = { allows: () => true };

export const noAuth: Authorizer = {
  authorize: async () => allowAll,
};
