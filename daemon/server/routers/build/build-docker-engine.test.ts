// The classic builder as Docker Engine 20.10 runs it: the same contexts built by svcd and by a
// private dockerd, through the API and the docker CLI, and what each client sees compared.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { useDockerCliOn, type DockerCli } from '../../../testing/docker-cli';
import { useEnginePair } from '../../testing/engine-pair';
import { expectStatus } from '../../../testing/containers-fixture';
import { jsonMessages } from '../../../testing/json-messages';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';
import { tarOf } from '../../../testing/tar-of';

const run = promisify(execFile);
const esc = '\x1b';

/** The `stream` texts of a build from a Dockerfile alone. */
async function buildStream(engine: EngineApi, dockerfile: string, query = ''): Promise<string[]> {
  const res = await engine.request('POST', `/build?rm=1&${query}`, {
    body: await tarOf([[{ name: 'Dockerfile' }, dockerfile]]),
    headers: { 'Content-Type': 'application/x-tar' },
  });
  const messages = jsonMessages(expectStatus(res, 200));
  assert.equal(messages.find((m) => m.error)?.error, undefined);
  return messages.flatMap((m) => (m.stream === undefined ? [] : [m.stream]));
}

/** The output of the first RUN step: what lies between "Running in" and "Removing intermediate". */
function runOutput(stream: string[]): string {
  const text = stream.join('');
  const start = text.indexOf('\n', text.indexOf(' ---> Running in ')) + 1;
  return text.slice(start, text.indexOf('Removing intermediate container', start));
}

describe('the classic builder as Docker Engine 20.10 runs it', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();
  const both = () => [engines().svcd, engines().dockerd] as const;
  const clis = [useDockerCliOn(() => engines().svcd.socket), useDockerCliOn(() => engines().dockerd.socket)];
  const pairs = () => both().map((engine, i) => [engine, clis[i]] as const);

  const dockerBuild = async (cli: DockerCli, ...args: string[]) => {
    const { stdout, stderr } = await run('docker', ['build', ...args], { env: cli.env(), encoding: 'utf8' });
    return stdout + stderr;
  };

  test("a RUN step's stderr is streamed wrapped in bright red, its stdout as it is", async () => {
    for (const engine of both()) {
      const out = runOutput(
        await buildStream(engine, 'FROM busybox\nRUN echo to-stdout; echo to-stderr >&2\n'),
      );
      // The two pipes are read apart, by either engine: compare each stream's text, not their order.
      const red = new RegExp(`${esc}\\[91m([^${esc}]*)${esc}\\[0m`, 'g');
      assert.equal([...out.matchAll(red)].map((m) => m[1]).join(''), 'to-stderr\n', JSON.stringify(out));
      assert.equal(out.replace(red, ''), 'to-stdout\n', JSON.stringify(out));
    }
  });

  test('extrahosts reach the /etc/hosts of RUN steps (docker build --add-host)', async () => {
    for (const [engine, cli] of pairs()) {
      const dir = cli.scratch('build-hosts-');
      writeFileSync(join(dir, 'Dockerfile'), 'FROM busybox\nRUN grep -w built-host /etc/hosts\n');
      const out = await dockerBuild(cli, '--add-host', 'built-host:10.1.2.3', dir);
      assert.match(out, /^10\.1\.2\.3\tbuilt-host$/m, out);
      // The API's own parameter, as the CLI sends it.
      const stream = await buildStream(
        engine,
        'FROM busybox\nRUN grep -w api-host /etc/hosts\n',
        'extrahosts=api-host:10.9.8.7',
      );
      assert.equal(runOutput(stream), '10.9.8.7\tapi-host\n');
    }
  });

  test('--cache-from: only the images named are cache sources', async () => {
    for (const [, cli] of pairs()) {
      const dir = cli.scratch('build-cache-from-');
      const dockerfile = 'FROM busybox\nRUN echo one > /one\nRUN echo two > /two\nENV STEP=three\n';
      writeFileSync(join(dir, 'Dockerfile'), dockerfile);
      const hits = (out: string) => (out.match(/Using cache/g) ?? []).length;
      await dockerBuild(cli, '-t', 'cache-source:1', dir);
      assert.equal(hits(await dockerBuild(cli, dir)), 3, 'the local cache');
      const none = await dockerBuild(cli, '--cache-from', 'nosuchtag', dir);
      assert.equal(hits(none), 0, none);
      const named = await dockerBuild(cli, '--cache-from', 'cache-source:1', dir);
      assert.equal(hits(named), 3, named);
      // Each hit is the image the first build made: the same ID at the end.
      const id = (out: string) => /Successfully built (\w+)/.exec(out)?.[1];
      assert.equal(id(named), (await cli.docker('images', '-q', 'cache-source:1')).slice(0, 12));
    }
  });
});
