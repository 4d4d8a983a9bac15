// Answers of the Registry API V2's list endpoints (GET /v2/_catalog, GET /v2/{name}/tags/list).
// A list may come as null: registries built on distribution send `tags: null` for a repository
// that has none.
export interface CatalogResponse {
  repositories: string[] | null;
}

export interface TagListResponse {
  name: string;
  tags: string[] | null;
}
