// The classic builder end to end: the real docker CLI (DOCKER_BUILDKIT=0) and docker-compose
// against an isolated svcd, and raw POST /build requests for what the CLI hides (errorDetail
// codes, cancelling by disconnecting, hostile contexts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { ImageInspect } from '../../../api/image-types';
import { tarOf } from '../../../testing/tar-of';
import { useDockerCli } from '../../../testing/docker-cli';
import { eventually, expectStatus, useEngine } from '../../../testing/containers-fixture';

const run = promisify(execFile);

interface BuildMessage {
  stream?: string;
  aux?: { ID: string };
  error?: string;
  errorDetail?: { code?: number; message: string };
}

/** Writes files (path → content) under a new scratch directory: a build context. */
function contextDir(scratch: string, files: Record<string, string>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(scratch, path, '..'), { recursive: true });
    writeFileSync(join(scratch, path), content);
  }
  return scratch;
}

const everyInstruction = `# escape=\\
ARG BASE=busybox:latest
FROM \${BASE} AS builder
ARG VERSION=1.0
RUN echo "built $VERSION" > /built.txt && \\
    echo builder-ran
FROM busybox:latest AS unused
RUN echo unused-stage-ran && exit 9
FROM \${BASE}
MAINTAINER someone@example.com
ARG VERSION
LABEL org.example.version="$VERSION" other=two
ENV APP_HOME=/srv/app EXTRA=\${VERSION:+set-\${VERSION}}
WORKDIR $APP_HOME
COPY --from=builder /built.txt ./
COPY --chown=svc:svc sub/ ./sub/
COPY *.txt ./texts/
ADD archive.tar.gz /unpacked/
USER svc
EXPOSE 8080 9000-9001/udp
VOLUME ["/data"]
STOPSIGNAL SIGINT
HEALTHCHECK --interval=5s --retries=2 CMD ["true"]
SHELL ["/bin/sh", "-eu", "-c"]
ONBUILD RUN echo triggered > /tmp/triggered
ENTRYPOINT ["/bin/sh", "-c"]
CMD ["cat /srv/app/built.txt /srv/app/texts/a.txt /unpacked/inner/t.txt; stat -c '%U %a' /srv/app/sub/s.txt; ls /srv/app/texts; id -un; ls /ctx-ignored 2>&1 || true"]
`;

describe('POST /build', () => {
  const suite = useEngine();
  const cli = useDockerCli(suite);
  const api = () => suite().svcd;

  async function buildRaw(
    query: string,
    body: Buffer,
  ): Promise<{ status: number; messages: BuildMessage[] }> {
    const res = await api().request('POST', `/v1.41/build?${query}`, {
      body,
      headers: { 'Content-Type': 'application/x-tar' },
    });
    if (res.status !== 200) return { status: res.status, messages: [{ error: res.text() }] };
    const lines = res
      .text()
      .split('\n')
      .filter((l) => l.trim() !== '');
    return { status: res.status, messages: lines.map((l) => JSON.parse(l) as BuildMessage) };
  }

  async function dockerBuild(...args: string[]): Promise<{ code: number; out: string }> {
    try {
      const { stdout, stderr } = await run('docker', ['build', ...args], {
        env: cli.env(),
        encoding: 'utf8',
      });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, out: e.stdout + e.stderr };
    }
  }

  test('every instruction, multi-stage with --from, build args, an ignore file with an exception', async () => {
    const dir = contextDir(cli.scratch('build-all-'), {
      Dockerfile: everyInstruction,
      'a.txt': 'file a\n',
      'b.txt': 'file b\n',
      'sub/s.txt': 's\n',
      'ignored/secret': 'secret\n',
      'ignored/keep.me': 'kept\n',
      '.dockerignore': 'ignored\n!ignored/keep.me\n',
    });
    const archiveSource = cli.scratch('build-archive-');
    contextDir(archiveSource, { 'inner/t.txt': 'from the archive\n' });
    await run('tar', ['-C', archiveSource, '-czf', join(dir, 'archive.tar.gz'), 'inner']);

    const built = await dockerBuild(
      '--build-arg',
      'VERSION=2.5',
      '--build-arg',
      'NOTDECLARED=1',
      '-t',
      'every:1',
      dir,
    );
    assert.equal(built.code, 0, built.out);
    assert.match(built.out, /Step 1\/\d+ : FROM \$\{BASE\} AS builder/);
    assert.match(built.out, /builder-ran/);
    assert.doesNotMatch(
      built.out,
      /unused-stage-ran|AS unused/,
      'a stage the target does not need is not built',
    );
    assert.match(built.out, /\[Warning\] One or more build-args \[NOTDECLARED\] were not consumed/);
    assert.match(built.out, /Successfully tagged every:1/);

    const output = await cli.docker('run', '--rm', 'every:1');
    assert.deepEqual(output.split('\n'), [
      'built 2.5',
      'file a',
      'from the archive',
      'svc 644',
      'a.txt',
      'b.txt',
      'svc',
      'ls: /ctx-ignored: No such file or directory',
    ]);
    const image = JSON.parse(await cli.docker('image', 'inspect', 'every:1')) as ImageInspect[];
    const config = image[0].Config;
    assert.equal(image[0].Author, 'someone@example.com');
    assert.equal(config.User, 'svc');
    assert.equal(config.WorkingDir, '/srv/app');
    assert.deepEqual(config.Labels, { 'org.example.version': '2.5', other: 'two' });
    assert.ok(config.Env?.includes('APP_HOME=/srv/app'));
    assert.ok(config.Env?.includes('EXTRA=set-2.5'));
    assert.ok(!config.Env?.some((e) => e.startsWith('VERSION=')), 'ARG values are not kept in the image');
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}).sort(), ['8080/tcp', '9000/udp', '9001/udp']);
    assert.deepEqual(config.Volumes, { '/data': {} });
    assert.equal(config.StopSignal, 'SIGINT');
    assert.deepEqual(config.Healthcheck, {
      Test: ['CMD', 'true'],
      Interval: 5e9,
      Retries: 2,
      Timeout: 0,
      StartPeriod: 0,
    });
    assert.deepEqual(config.Shell, ['/bin/sh', '-eu', '-c']);
    assert.deepEqual(config.OnBuild, ['RUN echo triggered > /tmp/triggered']);
    assert.deepEqual(config.Entrypoint, ['/bin/sh', '-c']);

    // The ignored directory's exception is in the context; the rest of it is not.
    const probe = contextDir(cli.scratch('build-probe-'), {
      Dockerfile: 'FROM busybox:latest\nCOPY . /ctx/\nRUN find /ctx -type f | sort\n',
      'ignored/secret': 'secret\n',
      'ignored/keep.me': 'kept\n',
      'top.txt': 'top\n',
      '.dockerignore': 'ignored\n!ignored/keep.me\n*.md\n',
      'notes.md': 'left out\n',
    });
    const listed = await dockerBuild(probe);
    assert.equal(listed.code, 0, listed.out);
    assert.match(listed.out, /\/ctx\/ignored\/keep\.me/);
    assert.match(listed.out, /\/ctx\/top\.txt/);
    assert.doesNotMatch(listed.out, /secret|notes\.md/);

    // ONBUILD triggers run in a child build, and only there.
    const child = contextDir(cli.scratch('build-child-'), {
      Dockerfile: 'FROM every:1\nRUN cat /tmp/triggered\n',
    });
    const childBuild = await dockerBuild('-t', 'every-child', child);
    assert.equal(childBuild.code, 0, childBuild.out);
    assert.match(childBuild.out, /# Executing 1 build trigger/);
    assert.match(childBuild.out, /triggered/);
  });

  test('--target builds only the stages it needs; -f and -f - name the instructions file', async () => {
    const dir = contextDir(cli.scratch('build-target-'), {
      'build.Dockerfile':
        'FROM busybox:latest AS first\nRUN echo first-ran > /f\nFROM busybox:latest AS second\nRUN echo second-ran\n',
    });
    const first = await dockerBuild(
      '-f',
      join(dir, 'build.Dockerfile'),
      '--target',
      'first',
      '-t',
      'target:first',
      dir,
    );
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /Step 2\/2 : RUN echo first-ran/);
    assert.doesNotMatch(first.out, /second-ran/);
    assert.equal(await cli.docker('run', '--rm', 'target:first', 'cat', '/f'), 'first-ran');

    const missing = await dockerBuild('-f', join(dir, 'build.Dockerfile'), '--target', 'nope', dir);
    assert.notEqual(missing.code, 0);
    assert.match(missing.out, /failed to reach build target nope/);

    const fromStdin = await run(
      'sh',
      ['-c', `printf 'FROM busybox:latest\\nRUN echo from-stdin\\n' | docker build -t stdin:1 -f - ${dir}`],
      {
        env: cli.env(),
        encoding: 'utf8',
      },
    );
    assert.match(fromStdin.stdout, /from-stdin/);
    assert.match(fromStdin.stdout, /Successfully tagged stdin:1/);
  });

  test('the cache: a rebuild runs nothing, a changed file reruns from its COPY on, --no-cache bypasses', async () => {
    const dir = contextDir(cli.scratch('build-cache-'), {
      Dockerfile:
        'FROM busybox:latest\nRUN echo step-one > /one\nCOPY data.txt /data.txt\nRUN cat /data.txt > /copy\nCMD ["cat", "/copy"]\n',
      'data.txt': 'version 1\n',
    });
    const cold = await dockerBuild('-t', 'cached:1', dir);
    assert.equal(cold.code, 0, cold.out);
    assert.equal((cold.out.match(/Using cache/g) ?? []).length, 0);
    const warm = await dockerBuild('-t', 'cached:1', dir);
    assert.equal((warm.out.match(/Using cache/g) ?? []).length, 4, warm.out);
    assert.doesNotMatch(warm.out, /Running in/);
    const id = (s: string) => /Successfully built (\w+)/.exec(s)?.[1];
    assert.equal(id(warm.out), id(cold.out));

    // Only the content counts: a new mtime alone is still a hit.
    writeFileSync(join(dir, 'data.txt'), 'version 1\n');
    const touched = await dockerBuild(dir);
    assert.equal((touched.out.match(/Using cache/g) ?? []).length, 4, touched.out);

    writeFileSync(join(dir, 'data.txt'), 'version 2\n');
    const changed = await dockerBuild('-t', 'cached:2', dir);
    assert.equal((changed.out.match(/Using cache/g) ?? []).length, 1, changed.out);
    assert.match(changed.out, /Step 2\/5 : RUN echo step-one > \/one\n ---> Using cache/);
    assert.equal(await cli.docker('run', '--rm', 'cached:2'), 'version 2');

    const fresh = await dockerBuild('--no-cache', dir);
    assert.equal((fresh.out.match(/Using cache/g) ?? []).length, 0, fresh.out);

    // The cache survives a restart of svcd.
    await api().stop();
    await api().start();
    const afterRestart = await dockerBuild(dir);
    assert.equal((afterRestart.out.match(/Using cache/g) ?? []).length, 4, afterRestart.out);

    // Images made elsewhere are used through cache-from: here, the history of cached:2.
    const prune = expectStatus(await api().request('POST', '/v1.41/build/prune'), 200).json<{
      SpaceReclaimed: number;
    }>();
    assert.equal(typeof prune.SpaceReclaimed, 'number');
    const noLocalCache = await dockerBuild(dir);
    assert.equal((noLocalCache.out.match(/Using cache/g) ?? []).length, 0, 'prune forgot the cache');
    const withCacheFrom = await dockerBuild('--cache-from', 'cached:2', dir);
    assert.equal((withCacheFrom.out.match(/Using cache/g) ?? []).length, 4, withCacheFrom.out);
  });

  test('a Svcfile comes before a Dockerfile; the svcfile query and .svcignore are the twins', async () => {
    const context = await tarOf([
      [{ name: 'Svcfile' }, 'FROM busybox:latest\nCOPY . /ctx/\nRUN echo from-svcfile; ls /ctx\n'],
      [{ name: 'Dockerfile' }, 'FROM busybox:latest\nRUN echo from-dockerfile\n'],
      [{ name: 'other/Build.svc' }, 'FROM busybox:latest\nRUN echo from-query\n'],
      [{ name: '.svcignore' }, 'secret.txt\n'],
      [{ name: 'secret.txt' }, 'hidden'],
    ]);
    const text = (r: { messages: BuildMessage[] }) => r.messages.map((m) => m.stream ?? '').join('');
    const byDefault = text(await buildRaw('', context));
    assert.match(byDefault, /from-svcfile/);
    assert.doesNotMatch(byDefault, /secret\.txt/);
    assert.match(text(await buildRaw('svcfile=other/Build.svc', context)), /from-query/);
    assert.match(text(await buildRaw('dockerfile=Dockerfile', context)), /from-dockerfile/);
    const missing = await buildRaw('svcfile=nope', context);
    assert.equal(missing.status, 404);
    assert.match(missing.messages[0].error ?? '', /Cannot locate specified Dockerfile: nope/);
  });

  test('intermediate images: listed with -a only, removed with the last image built on them', async () => {
    const dir = contextDir(cli.scratch('build-layers-'), {
      Dockerfile: 'FROM busybox:latest\nRUN echo one > /one\nRUN echo two > /two\nLABEL layered=yes\n',
    });
    const built = await dockerBuild('-t', 'layered:1', dir);
    assert.equal(built.code, 0, built.out);
    const steps = [...built.out.matchAll(/ ---> ([0-9a-f]{12})\n/g)].map((m) => m[1]);
    const intermediates = steps.slice(1, -1);
    assert.equal(intermediates.length, 2);
    const listed = await cli.docker('images', '-q');
    const all = await cli.docker('images', '-a', '-q');
    for (const id of intermediates) {
      assert.ok(!listed.includes(id), `${id} is hidden from docker images`);
      assert.ok(all.includes(id), `${id} is listed by docker images -a`);
    }
    const removed = await cli.docker('rmi', 'layered:1');
    for (const id of intermediates) assert.match(removed, new RegExp(`Deleted: sha256:${id}`));
    assert.ok(
      (await cli.docker('image', 'inspect', 'busybox:latest')).includes('busybox'),
      'the tagged base stays',
    );

    // A dangling image made by a rebuild goes with image prune, and its untagged parents too.
    writeFileSync(join(dir, 'Dockerfile'), 'FROM busybox:latest\nRUN echo three > /three\nLABEL v=1\n');
    const first = await dockerBuild('-t', 'layered:2', dir);
    const [, run, old] = [...first.out.matchAll(/ ---> ([0-9a-f]{12})\n/g)].map((m) => m[1]);
    writeFileSync(join(dir, 'Dockerfile'), 'FROM busybox:latest\nRUN echo three > /three\nLABEL v=2\n');
    const rebuilt = await dockerBuild('--no-cache', '-t', 'layered:2', dir);
    assert.equal(rebuilt.code, 0, rebuilt.out);
    const pruned = await cli.docker('image', 'prune', '-f');
    assert.match(pruned, new RegExp(`deleted: sha256:${old}`));
    assert.match(pruned, new RegExp(`deleted: sha256:${run}`));
    assert.ok((await cli.docker('image', 'inspect', 'layered:2')).includes('v'), 'the tagged image stays');
  });

  test('a syntax error is reported with its line before any step runs', async () => {
    const dir = contextDir(cli.scratch('build-syntax-'), {
      Dockerfile: 'FROM busybox:latest\nRUN touch /should-not-run\nFROBNICATE now\n',
    });
    const before = (await cli.docker('ps', '-aq')).split('\n').filter(Boolean).length;
    const result = await dockerBuild(dir);
    assert.notEqual(result.code, 0);
    assert.match(result.out, /Dockerfile parse error line 3: unknown instruction: FROBNICATE/);
    assert.doesNotMatch(result.out, /Step 1/);
    assert.equal(
      (await cli.docker('ps', '-aq')).split('\n').filter(Boolean).length,
      before,
      'no container was made',
    );

    const badFlag = await buildRaw(
      '',
      await tarOf([[{ name: 'Dockerfile' }, 'FROM busybox:latest\nCOPY --mode=7 a b\n']]),
    );
    assert.equal(badFlag.status, 400);
    assert.match(badFlag.messages[0].error ?? '', /line 2: Unknown flag: mode/);
  });

  test('a failing RUN: its exit code in errorDetail, the CLI exits with it', async () => {
    const dockerfile = 'FROM busybox:latest\nRUN echo to-stdout; echo to-stderr >&2; exit 3\n';
    const { status, messages } = await buildRaw(
      'rm=1&forcerm=1',
      await tarOf([[{ name: 'Dockerfile' }, dockerfile]]),
    );
    assert.equal(status, 200);
    const text = messages.map((m) => m.stream ?? '').join('');
    assert.match(text, /to-stdout\n/);
    assert.match(text, /to-stderr\n/);
    const last = messages.at(-1)!;
    assert.equal(last.errorDetail?.code, 3);
    assert.equal(
      last.error,
      "The command '/bin/sh -c echo to-stdout; echo to-stderr >&2; exit 3' returned a non-zero code: 3",
    );
    const container = /Running in (\w+)/.exec(text)![1];
    expectStatus(
      await api().request('GET', `/containers/${container}/json`),
      404,
      'forcerm removes the failed container',
    );

    const dir = contextDir(cli.scratch('build-fail-'), { Dockerfile: dockerfile });
    const result = await dockerBuild(dir);
    assert.equal(result.code, 3, result.out);
  });

  test('a client that disconnects cancels the build: the step is killed, its container removed', async () => {
    const context = await tarOf([
      [{ name: 'Dockerfile' }, 'FROM busybox:latest\nRUN echo started; sleep 60; touch /finished\n'],
    ]);
    const container = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          socketPath: api().socket,
          method: 'POST',
          path: '/v1.41/build?t=cancelled:1',
          headers: { 'Content-Type': 'application/x-tar' },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            const m = /Running in (\w+)/.exec(text);
            if (m && text.includes('started')) {
              req.destroy();
              resolve(m[1]);
            }
          });
          res.on('error', () => undefined);
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end(context);
    });
    const gone = await eventually(
      async () => (await api().request('GET', `/containers/${container}/json`)).status,
      (status) => status === 404,
    );
    assert.equal(gone, 404, 'the step container is removed');
    expectStatus(await api().request('GET', '/images/cancelled:1/json'), 404, 'no image is tagged');
    const running = (await api().request('GET', '/containers/json')).json<unknown[]>();
    assert.equal(running.length, 0);
  });

  test('hostile contexts are refused or confined, never written outside', async () => {
    const outside = join(api().dataRoot, '..', 'escaped-by-build');
    const escape = await buildRaw(
      '',
      await tarOf([
        [{ name: 'Dockerfile' }, 'FROM busybox:latest\n'],
        [{ name: '../../escaped-by-build' }, 'x'],
      ]),
    );
    assert.equal(escape.status, 400);
    assert.match(escape.messages[0].error ?? '', /path escapes the root/);

    const device = await buildRaw(
      '',
      await tarOf([
        [{ name: 'Dockerfile' }, 'FROM busybox:latest\n'],
        [{ name: 'null', type: 'character-device', devmajor: 1, devminor: 3 }],
      ]),
    );
    assert.equal(device.status, 400);
    assert.match(device.messages[0].error ?? '', /is a character device/);

    // A symlink pointing out, and an entry through it: the entry lands inside the context.
    const linked = await buildRaw(
      '',
      await tarOf([
        [{ name: 'Dockerfile' }, 'FROM busybox:latest\nCOPY out/ /got/\nRUN ls /got\n'],
        [{ name: 'out', type: 'symlink', linkname: outside }],
        [{ name: 'out/planted' }, 'planted'],
      ]),
    );
    assert.equal(linked.status, 200, JSON.stringify(linked.messages));
    assert.equal(existsSync(join(outside, 'planted')), false);
    assert.match(linked.messages.map((m) => m.stream ?? '').join(''), /planted/);

    // 96 MiB of zeros in a few hundred KiB.
    const bomb = gzipSync(
      await tarOf([
        [{ name: 'Dockerfile' }, 'FROM busybox:latest\n'],
        [{ name: 'zeros' }, '\0'.repeat(96 << 20)],
      ]),
    );
    const bombed = await buildRaw('', bomb);
    assert.equal(bombed.status, 400);
    assert.match(bombed.messages[0].error ?? '', /decompression bomb/);
  });

  test('refused clearly: BuildKit sessions, squash, other platforms, bad query values', async () => {
    const context = await tarOf([[{ name: 'Dockerfile' }, 'FROM busybox:latest\n']]);
    for (const [query, pattern] of [
      ['version=2', /classic builder/],
      ['squash=1', /squash is not supported/],
      ['platform=linux/s390x', /platform linux\/s390x is not supported/],
      ['buildargs=notjson', /invalid buildargs/],
      ['t=Bad:Name:x', /invalid reference format/],
    ] as const) {
      const res = await buildRaw(query, context);
      assert.equal(res.status, 400, query);
      assert.match(res.messages[0].error ?? '', pattern, query);
    }
  });

  test('remote contexts (a tar or one file over http, a git repository at #ref:dir) and ADD of a URL', async () => {
    const repo = contextDir(cli.scratch('build-git-'), {
      'app/Dockerfile': 'FROM busybox:latest\nCOPY hello.txt /hello.txt\nCMD ["cat", "/hello.txt"]\n',
      'app/hello.txt': 'from git\n',
    });
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo });
    await git('init', '-q', '-b', 'release');
    await git('add', '.');
    await git('commit', '-qm', 'context');
    await git('update-server-info');
    const files = new Map<string, Buffer>([
      [
        '/ctx.tar.gz',
        gzipSync(
          await tarOf([
            [{ name: 'Dockerfile' }, 'FROM busybox:latest\nCOPY a /a\n'],
            [{ name: 'a' }, 'from a tar\n'],
          ]),
        ),
      ],
      [
        '/Dockerfile',
        Buffer.from(
          `FROM busybox:latest\nADD http://127.0.0.1:PORT/data/file.txt /added/\nRUN stat -c '%a %Y' /added/file.txt; cat /added/file.txt\n`,
        ),
      ],
      ['/data/file.txt', Buffer.from('downloaded\n')],
    ]);
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const gitFile = path.startsWith('/repo.git/')
        ? join(repo, '.git', path.slice('/repo.git/'.length))
        : undefined;
      const body = files.get(path) ?? (gitFile && existsSync(gitFile) ? readFileSync(gitFile) : undefined);
      if (!body) {
        res.writeHead(404).end();
        return;
      }
      res
        .writeHead(200, { 'Last-Modified': 'Tue, 03 Nov 2026 10:00:00 GMT' })
        .end(path === '/Dockerfile' ? body.toString().replace('PORT', String(port)) : body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const tar = await buildRaw(
        `remote=${encodeURIComponent(`http://127.0.0.1:${port}/ctx.tar.gz`)}&t=remote:tar`,
        Buffer.alloc(0),
      );
      assert.equal(tar.status, 200, JSON.stringify(tar.messages));
      assert.equal(await cli.docker('run', '--rm', 'remote:tar', 'cat', '/a'), 'from a tar');

      const single = await buildRaw(
        `remote=${encodeURIComponent(`http://127.0.0.1:${port}/Dockerfile`)}`,
        Buffer.alloc(0),
      );
      const text = single.messages.map((m) => m.stream ?? '').join('');
      assert.ok(!single.messages.some((m) => m.error), JSON.stringify(single.messages));
      // Saved as Docker saves a download: mode 0600, its time from Last-Modified.
      assert.match(text, new RegExp(`600 ${Date.parse('2026-11-03T10:00:00Z') / 1000}\ndownloaded\n`));

      // The CLI clones git contexts itself; the API's remote is cloned by svcd.
      const gitUrl = `http://127.0.0.1:${port}/repo.git#release:app`;
      const fromGit = await buildRaw(`remote=${encodeURIComponent(gitUrl)}&t=remote:git`, Buffer.alloc(0));
      assert.ok(!fromGit.messages.some((m) => m.error), JSON.stringify(fromGit.messages));
      assert.equal(await cli.docker('run', '--rm', 'remote:git'), 'from git');
    } finally {
      server.close();
    }
  });

  test('docker-compose build', async () => {
    const dir = contextDir(cli.scratch('build-compose-'), {
      'docker-compose.yml':
        'version: "3"\nservices:\n  web:\n    build:\n      context: ./web\n      args:\n        MESSAGE: from-compose\n    image: composed:1\n',
      'web/Dockerfile':
        'FROM busybox:latest\nARG MESSAGE\nRUN echo "$MESSAGE" > /message\nCMD ["cat", "/message"]\n',
    });
    await run('docker-compose', ['-p', 'buildtest', 'build'], {
      cwd: dir,
      env: { ...cli.env(), COMPOSE_DOCKER_CLI_BUILD: '0' },
    });
    assert.equal(await cli.docker('run', '--rm', 'composed:1'), 'from-compose');
  });
});
