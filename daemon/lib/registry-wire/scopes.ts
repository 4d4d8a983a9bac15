// Token scopes as Distribution names them: `repository:<name>:<actions>`, `registry:catalog:*`.

export type RepositoryActions = 'pull' | 'pull,push' | 'delete';

export function repositoryScope(repo: string, actions: RepositoryActions): string {
  return `repository:${repo}:${actions}`;
}

export const catalogScope = 'registry:catalog:*';

/** The scope a request needs, read from its method and path; undefined for /v2/ itself. */
export function scopeOfRequest(method: string, path: string): string | undefined {
  if (/^\/v2\/_catalog(?:\?|$)/.test(path)) return catalogScope;
  const m = /^\/v2\/(.+?)\/(?:manifests|blobs|tags)\//.exec(path);
  if (!m) return undefined;
  const actions =
    method === 'GET' || method === 'HEAD' ? 'pull' : method === 'DELETE' ? 'delete' : 'pull,push';
  return repositoryScope(m[1], actions);
}
