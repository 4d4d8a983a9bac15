// GET /v2/: the API version check (the version header is set on every /v2/ answer).
import { sendJson, type Handler } from './context';

export const apiVersionCheck: Handler = async ({ res }) => {
  sendJson(res, 200, {});
};
