// `docker-compose up -d` and `down` of a compose file the renderer sends, run by the installed
// docker-compose (Debian's 1.29) with DOCKER_HOST pointing at the engine chosen: GET /api/compose
// says whether it is installed, POST /api/compose/{up,down} runs it and answers its output.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { ComposeRequest, ComposeResult, ComposeTool } from '../../../daemon/api/desktop-types';
import type { Upstreams } from './upstream';
import { readJsonBody, sendError, sendJson } from './responses';

const PROJECT = /^[a-z0-9][a-z0-9_-]*$/;

function findCompose(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const bin = join(dir, 'docker-compose');
    try {
      accessSync(bin, constants.X_OK);
      return bin;
    } catch {}
  }
  return undefined;
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<ComposeResult> {
  return new Promise((resolve) => {
    execFile(bin, args, { env, cwd, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ exitCode: code, output: `${stdout}${stderr}`.trim() || (err && !stderr ? err.message : '') });
    });
  });
}

/** DOCKER_HOST for the engine, or why docker-compose cannot be pointed at it. */
function dockerHost(engine: string, api: Upstreams): { host?: string; refusal?: string } {
  if (engine === 'local') return { host: `unix://${api.engineSocket}` };
  const e = api.engines?.list().find((x) => x.id === engine);
  if (!e) return { refusal: `no such engine: ${engine}` };
  // Its certificates are the main process's to read; docker-compose would need them as files named its way.
  if (e.tls) return { refusal: `compose up and down are not offered for ${e.name}: it is reached over TLS` };
  return { host: e.endpoint };
}

export async function handleComposeApi(
  req: IncomingMessage,
  res: ServerResponse,
  action: string | undefined,
  api: Upstreams,
): Promise<void> {
  const bin = findCompose();
  if (req.method === 'GET' && !action) {
    if (!bin) return sendJson(res, 200, { available: false } satisfies ComposeTool);
    const v = await run(bin, ['version', '--short'], process.env);
    return sendJson(res, 200, { available: true, version: v.output.split('\n')[0] } satisfies ComposeTool);
  }
  if (req.method !== 'POST' || (action !== 'up' && action !== 'down'))
    return sendError(res, 404, `no such endpoint: ${req.method} /api/compose/${action ?? ''}`);
  if (!bin)
    return sendError(
      res,
      501,
      'docker-compose is not installed on this machine (apt-get install docker-compose)',
    );
  const body = (await readJsonBody(req)) as Partial<ComposeRequest> | undefined;
  if (!body || typeof body.project !== 'string' || !PROJECT.test(body.project))
    return sendError(
      res,
      400,
      'project: lower-case letters, digits, "-" and "_", starting with a letter or digit',
    );
  if (typeof body.file !== 'string' || !body.file.trim())
    return sendError(res, 400, 'file: the compose file text is required');
  const target = dockerHost(typeof body.engine === 'string' ? body.engine : 'local', api);
  if (!target.host) return sendError(res, 501, target.refusal!);
  const env = { ...process.env, DOCKER_HOST: target.host, COMPOSE_INTERACTIVE_NO_CLI: '1' };
  const args =
    action === 'up'
      ? ['-p', body.project, 'up', '-d', '--no-color']
      : ['-p', body.project, 'down', '--remove-orphans', ...(body.volumes ? ['-v'] : [])];
  // The file is written where docker-compose reads it, and gone after: paths in it are relative to nothing of the user's.
  const dir = await mkdtemp(join(tmpdir(), 'svc-compose-'));
  try {
    await writeFile(join(dir, 'docker-compose.yml'), body.file);
    sendJson(res, 200, await run(bin, args, env, dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
