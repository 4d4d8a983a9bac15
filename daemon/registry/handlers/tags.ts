// GET /v2/<name>/tags/list: the tags of a repository, paginated.
import { RegistryError } from '../api/error-codes';
import { sendJson, type Handler } from './context';
import { paginate } from './pagination';

export const getTags: Handler = async ({ res, url, params, storage, config }) => {
  const tags = await storage.tags.list(params.name);
  if (!tags) throw new RegistryError('NAME_UNKNOWN', undefined, { name: params.name });
  const page = paginate(tags, url, config.pageCap);
  sendJson(res, 200, { name: params.name, tags: page.entries }, page.link ? { Link: page.link } : {});
};
