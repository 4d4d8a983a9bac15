import { InvalidParameterError } from '../../../api/errors';
import { supports } from '../../../api/versions';
import type { ExecCreateBody, ExecStartBody } from '../../../api/exec-types';
import { readJson } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import { parseDetachKeys } from '../../streams/detach-keys';
import { hijack, untilHeadRead } from '../../streams/hijack';
import { StdStream, StreamMultiplexer } from '../../streams/stdcopy';
import { EarlyOutput, serveSession } from '../../streams/stdio-session';
import type { ExecBackend } from './backend';

export function execHandlers(b: ExecBackend): Record<string, Handler> {
  return {
    create: async ({ req, res, params, version }) => {
      const { detachKeys, ...body } = (await readJson<ExecCreateBody>(req)) ?? {};
      body.DetachKeys ??= detachKeys;
      if (body.DetachKeys) parseDetachKeys(body.DetachKeys);
      const created = await b.create(params.id, body, {
        env: supports(version, 'execEnv'),
        workingDir: supports(version, 'execWorkingDir'),
        stateConflict: supports(version, 'execStateConflict'),
      });
      sendJson(res, 201, created);
    },

    start: async ({ req, res, params, version }) => {
      const body = (await readJson<ExecStartBody>(req)) ?? {};
      const stateConflict = supports(version, 'execStateConflict');
      if (body.Detach) {
        await b.start(params.id, true, stateConflict);
        return sendStatus(res, 200);
      }
      const exec = b.get(params.id);
      const detachKeys = parseDetachKeys(body.DetachKeys ?? exec.detachKeys);
      b.checkStart(params.id, stateConflict);
      // Listening before the start: a short command may print and exit before it resolves.
      const early = new EarlyOutput(exec);
      // The start runs while the head goes out: what the process prints is held (early) until
      // the session below, so the head still goes alone first (see hijack).
      const refused = b.start(params.id, false, stateConflict).then(
        () => undefined,
        (err: unknown) => err,
      );
      const conn = await hijack(req, res);
      const mux = new StreamMultiplexer(conn.conn, !body.Tty);
      const err = await refused;
      // Once the stream has begun the runtime's refusal is output, as dockerd writes it; the
      // exec has ended with its exit code, which ends the session below.
      if (conn.upgraded) await untilHeadRead(conn);
      if (err) mux.write(StdStream.stdout, `${err instanceof Error ? err.message : String(err)}\r\n`);
      await serveSession(early, {
        conn: conn.conn,
        close: () => conn.close(),
        closed: conn.closed,
        mux,
        stdin: exec.stdinAttached,
        detachKeys,
      });
    },

    resize: async ({ res, params, query }) => {
      const h = query.int('h');
      const w = query.int('w');
      if (h === undefined || w === undefined) throw new InvalidParameterError('h and w are required');
      await b.resize(params.id, h, w);
      res.writeHead(201, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 });
      res.end();
    },

    inspect: async ({ res, params, version }) =>
      sendJson(res, 200, b.inspect(params.id, supports(version, 'execPid'))),
  };
}
