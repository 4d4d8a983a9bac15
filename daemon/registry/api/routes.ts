// The route table, as data: each path pattern with, per method, the spec operation that serves
// it, the repository actions it needs and whether it writes (refused in read-only mode).

export type RouteName =
  | 'apiVersionCheck'
  | 'getCatalog'
  | 'getTags'
  | 'getManifest'
  | 'putManifest'
  | 'deleteManifest'
  | 'getReferrers'
  | 'getBlob'
  | 'deleteBlob'
  | 'startBlobUpload'
  | 'getUploadStatus'
  | 'patchBlobData'
  | 'putBlobUploadComplete'
  | 'cancelBlobUpload'
  | 'getToken';

export type Action = 'pull' | 'push' | 'delete';

export interface Operation {
  name: RouteName;
  /** Repository actions on <name>; 'catalog' for registry:catalog:*; [] for none. */
  access: Action[] | 'catalog';
  writes: boolean;
}

export interface Route {
  pattern: RegExp;
  methods: Partial<Record<string, Operation>>;
}

const op = (name: RouteName, access: Operation['access'], writes = false): Operation => ({
  name,
  access,
  writes,
});

const name = '(?<name>.+)';

export const routes: Route[] = [
  { pattern: /^\/v2\/$/, methods: { GET: op('apiVersionCheck', []) } },
  { pattern: /^\/v2\/_catalog$/, methods: { GET: op('getCatalog', 'catalog') } },
  { pattern: new RegExp(`^/v2/${name}/tags/list$`), methods: { GET: op('getTags', ['pull']) } },
  {
    pattern: new RegExp(`^/v2/${name}/manifests/(?<reference>[^/]+)$`),
    methods: {
      GET: op('getManifest', ['pull']),
      HEAD: op('getManifest', ['pull']),
      PUT: op('putManifest', ['pull', 'push'], true),
      DELETE: op('deleteManifest', ['delete'], true),
    },
  },
  {
    pattern: new RegExp(`^/v2/${name}/referrers/(?<digest>[^/]+)$`),
    methods: { GET: op('getReferrers', ['pull']) },
  },
  {
    pattern: new RegExp(`^/v2/${name}/blobs/uploads/?$`),
    methods: { POST: op('startBlobUpload', ['pull', 'push'], true) },
  },
  {
    pattern: new RegExp(`^/v2/${name}/blobs/uploads/(?<uuid>[^/]+)$`),
    methods: {
      GET: op('getUploadStatus', ['pull', 'push']),
      PATCH: op('patchBlobData', ['pull', 'push'], true),
      PUT: op('putBlobUploadComplete', ['pull', 'push'], true),
      DELETE: op('cancelBlobUpload', ['pull', 'push'], true),
    },
  },
  {
    pattern: new RegExp(`^/v2/${name}/blobs/(?<digest>[^/]+)$`),
    methods: {
      GET: op('getBlob', ['pull']),
      HEAD: op('getBlob', ['pull']),
      DELETE: op('deleteBlob', ['delete'], true),
    },
  },
  { pattern: /^\/token$/, methods: { GET: op('getToken', []) } },
];

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** "sha256%3Aabc" is "sha256:abc", as Distribution reads its decoded path; a bad escape stays as sent. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function matchRoute(pathname: string): RouteMatch | undefined {
  for (const route of routes) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = { ...m.groups };
    // The references a client may percent-encode; repository names keep their own checks.
    for (const k of ['reference', 'digest'] as const)
      if (params[k] !== undefined) params[k] = decoded(params[k]);
    return { route, params };
  }
  return undefined;
}
