// Plugins run outside svcd, found as dockerd finds them: `NAME.sock` (or `NAME/NAME.sock`) in a
// socket directory, `NAME.spec` (a `unix://` or `tcp://` address on one line) or `NAME.json`
// ({"Addr": ...}) in a spec directory. svcd looks in its own directory first, then Docker's.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidParameterError } from '../../api/errors';
import type { PluginEndpoint } from './plugin-protocol';

/** svcd's own directory, then dockerd's socket and spec directories. */
export const DEFAULT_PLUGIN_DIRS = [
  '/run/svc/plugins',
  '/run/docker/plugins',
  '/etc/docker/plugins',
  '/usr/lib/docker/plugins',
];

const validName = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

const isSocket = (path: string) =>
  stat(path).then(
    (s) => s.isSocket(),
    () => false,
  );

function endpointOf(address: string, file: string): PluginEndpoint {
  const url = address.trim();
  if (url.startsWith('unix://')) return { socketPath: url.slice('unix://'.length) };
  if (url.startsWith('tcp://')) return { baseUrl: `http://${url.slice('tcp://'.length)}` };
  if (url.startsWith('http://')) return { baseUrl: url };
  throw new InvalidParameterError(
    `${file}: unsupported plugin address ${JSON.stringify(url)} (unix:// or tcp://)`,
  );
}

/** The endpoint of the legacy plugin `name`, or undefined when no directory has it. */
export async function discoverPlugin(dirs: string[], name: string): Promise<PluginEndpoint | undefined> {
  if (!validName.test(name)) return undefined;
  for (const dir of dirs) {
    for (const sock of [join(dir, `${name}.sock`), join(dir, name, `${name}.sock`)]) {
      if (await isSocket(sock)) return { socketPath: sock };
    }
    const spec = join(dir, `${name}.spec`);
    const specText = await readFile(spec, 'utf8').catch(() => undefined);
    if (specText !== undefined) return endpointOf(specText, spec);
    const json = join(dir, `${name}.json`);
    const jsonText = await readFile(json, 'utf8').catch(() => undefined);
    if (jsonText !== undefined) {
      let addr: unknown;
      try {
        addr = (JSON.parse(jsonText) as { Addr?: unknown }).Addr;
      } catch (err) {
        throw new InvalidParameterError(`${json}: ${(err as Error).message}`);
      }
      if (typeof addr !== 'string') throw new InvalidParameterError(`${json}: no Addr`);
      return endpointOf(addr, json);
    }
  }
  return undefined;
}
