// Long operations that answer with a JSON progress stream (pull, push, import, load, build).
import type { ServerResponse } from 'node:http';
import { BuildStepError } from '../../api/build-types';
import type { Emit } from '../../api/image-types';
import { JsonLinesWriter } from '../../lib/json-lines';

/**
 * Runs a streaming operation: its messages go out as JSON lines. A failure before the first
 * message is an ordinary error answer (the status says it) unless `failInStream`, as dockerd's
 * load always answers 200 and tells a bad archive in the stream; after, it goes into the stream,
 * with a failed build step's exit code as errorDetail's code.
 */
export async function jsonStream(
  res: ServerResponse,
  run: (emit: Emit) => Promise<void>,
  failInStream = false,
): Promise<void> {
  const writer = new JsonLinesWriter(res, () => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
  });
  // Messages are emitted synchronously by the engine; writes are chained to keep their order.
  let chain = Promise.resolve();
  const emit: Emit = (message) => {
    chain = chain.then(() => writer.write(message)).catch(() => undefined);
  };
  try {
    await run(emit);
    await chain;
  } catch (err) {
    await chain;
    if (!writer.started && !failInStream) throw err;
    const code = err instanceof BuildStepError ? err.code : undefined;
    if (!res.destroyed) await writer.writeError(err, code).catch(() => undefined);
  }
  writer.end();
}
