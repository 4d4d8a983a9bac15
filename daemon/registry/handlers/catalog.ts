// GET /v2/_catalog: repository names, paginated.
import { sendJson, type Handler } from './context';
import { paginate } from './pagination';

export const getCatalog: Handler = async ({ res, url, storage, config }) => {
  const page = paginate(await storage.repositories(), url, config.pageCap);
  sendJson(res, 200, { repositories: page.entries }, page.link ? { Link: page.link } : {});
};
