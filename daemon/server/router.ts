// Routes as data: each router exports a table of these, the server matches and dispatches them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiVersion } from '../api/versions';
import type { Query } from './http/query';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The API version the client asked for (the newest when the path has no prefix). */
  version: ApiVersion;
  params: Record<string, string>;
  query: Query;
  /** Aborted when the client goes away, so long operations stop. */
  signal: AbortSignal;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

export interface Route {
  method: Method;
  /** `/containers/{id}/json`; `{name*}` matches across slashes (image names contain them). */
  path: string;
  handler: Handler;
  /** The first API version that has this route. */
  minVersion?: string;
  /** The last API version that has this route. */
  maxVersion?: string;
}

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

export class RouteTable {
  private readonly routes: CompiledRoute[] = [];

  constructor(routes: Route[]) {
    for (const r of routes) this.routes.push(compile(r));
  }

  /** The routes whose path matches, whatever their method, so a wrong method is told apart. */
  match(path: string): Array<{ route: Route; params: Record<string, string> }> {
    const out: Array<{ route: Route; params: Record<string, string> }> = [];
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
      out.push({ route: r, params });
    }
    return out;
  }
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split(/(\{[a-zA-Z]+\*?\})/)
    .map((part) => {
      const m = /^\{([a-zA-Z]+)(\*?)\}$/.exec(part);
      if (!m) return part.replace(/[.+?^$()[\]\\|]/g, '\\$&');
      names.push(m[1]);
      return m[2] ? '(.+)' : '([^/]+)';
    })
    .join('');
  return { ...route, pattern: new RegExp(`^${source}/?$`), names };
}
