// The renderer's pure helpers, run under Node: the tar reader against real GNU tar output, the
// stdcopy demuxer across chunk boundaries, the run form's create body, pull progress folding,
// the virtual list's scroll scale for content taller than an element may be.
import { test, describe, mock } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstFileOf, tarReader, type TarEntry } from '../renderer/src/api/tar-reader';
import { demuxer } from '../renderer/src/api/stdcopy';
import {
  createBody,
  emptyRunForm,
  envFileLines,
  hostPorts,
  laterNetworks,
} from '../renderer/src/features/containers/create-body';
import { splitCommand } from '../renderer/src/app/ui/form-input';
import { fold } from '../renderer/src/api/pull-progress';
import { layerHistory, layerTree } from '../renderer/src/features/images/layer-tree';
import { archiveName } from '../renderer/src/features/images/names';
import {
  clampOffset,
  keyDelta,
  MAX_SPACE,
  offsetAt,
  rowsPlace,
  scrollScale,
  scrollTopFor,
  wheelDelta,
} from '../renderer/src/app/ui/scroll-scale';
import type { ImageHistoryItem } from '../renderer/src/api/engine-types';
import { scaleTop } from '../renderer/src/app/ui/chart-scale';
import { statusAt, statusSince } from '../renderer/src/app/ui/format';
import { onClockTick, readClocksOnBeat } from '../renderer/src/app/ui/clock-ticks';
import { networkBody, emptyNetworkForm } from '../renderer/src/features/networks/network-form';
import { inUseMessage, volumeBody, emptyVolumeForm } from '../renderer/src/features/volumes/volume-form';

function frame(stream: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const h = Buffer.alloc(8);
  h[0] = stream;
  h.writeUInt32BE(payload.length, 4);
  return Buffer.concat([h, payload]);
}

describe('tar reader', () => {
  test('lists what GNU tar wrote, long names included, fed in small chunks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tar-reader-'));
    try {
      const long = 'd'.repeat(120);
      mkdirSync(join(dir, 'src', 'sub', long), { recursive: true });
      writeFileSync(join(dir, 'src', 'a.txt'), 'x'.repeat(1000));
      writeFileSync(join(dir, 'src', 'sub', long, 'deep.txt'), 'y');
      symlinkSync('a.txt', join(dir, 'src', 'link'));
      const tar = execFileSync('tar', ['-c', '--format=gnu', '-C', join(dir, 'src'), '.']);
      const entries: TarEntry[] = [];
      const feed = tarReader((e) => entries.push(e));
      for (let off = 0; off < tar.length; off += 333) feed(new Uint8Array(tar.subarray(off, off + 333)));
      const byName = new Map(entries.map((e) => [e.name.replace(/^\.\//, ''), e]));
      assert.equal(byName.get('a.txt')?.size, 1000);
      assert.equal(byName.get('a.txt')?.type, 'file');
      assert.equal(byName.get('link')?.type, 'symlink');
      assert.equal(byName.get('link')?.linkTarget, 'a.txt');
      assert.equal(byName.get(`sub/${long}/deep.txt`)?.size, 1);
      assert.equal(byName.get(`sub/${long}/`)?.type, 'dir');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('one file out of a tar', () => {
  test('takes the file contents past a PAX header, and finds none in a folder-only archive', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tar-file-'));
    try {
      const body = 'z'.repeat(700) + '\n';
      writeFileSync(join(dir, `${'n'.repeat(110)}.txt`), body);
      mkdirSync(join(dir, 'empty'));
      const tar = execFileSync('tar', ['-c', '--format=pax', '-C', dir, `${'n'.repeat(110)}.txt`]);
      assert.equal(Buffer.from(firstFileOf(new Uint8Array(tar))!).toString(), body);
      const folder = execFileSync('tar', ['-c', '--format=gnu', '-C', dir, 'empty']);
      assert.equal(firstFileOf(new Uint8Array(folder)), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('stdcopy demuxer', () => {
  test('splits stdout and stderr frames even when a frame spans chunks', () => {
    const all = Buffer.concat([frame(1, 'out one\n'), frame(2, 'err\n'), frame(1, 'out two\n')]);
    const demux = demuxer(false);
    const got: string[] = [];
    let prev = 0;
    for (const cut of [3, 11, 20, all.length]) {
      for (const c of demux(new Uint8Array(all.subarray(prev, cut))))
        got.push(`${c.stream}:${Buffer.from(c.data)}`);
      prev = cut;
    }
    assert.deepEqual(got, ['stdout:out one\n', 'stderr:err\n', 'stdout:out two\n']);
  });

  test('passes a TTY stream through untouched', () => {
    const [c] = demuxer(true)(new Uint8Array(Buffer.from('raw \x1b[31mred')));
    assert.equal(c.stream, 'raw');
    assert.equal(Buffer.from(c.data).toString(), 'raw \x1b[31mred');
  });
});

describe('run form', () => {
  const base = { ...emptyRunForm, image: 'busybox' };

  test('builds the create body docker run would', () => {
    const body = createBody({
      ...base,
      command: `sh -c "echo hi; sleep 1"`,
      env: 'A=1\nB=two words',
      ports: '8080:80\n127.0.0.1:5353:53/udp\n9000',
      volumes: 'data:/data\n/host:/ro:ro',
      restart: 'unless-stopped',
    });
    assert.deepEqual(body.Cmd, ['sh', '-c', 'echo hi; sleep 1']);
    assert.deepEqual(body.Env, ['A=1', 'B=two words']);
    assert.deepEqual(Object.keys(body.ExposedPorts!), ['80/tcp', '53/udp', '9000/tcp']);
    assert.deepEqual(body.HostConfig!.PortBindings, {
      '80/tcp': [{ HostIp: '', HostPort: '8080' }],
      '53/udp': [{ HostIp: '127.0.0.1', HostPort: '5353' }],
      '9000/tcp': [{ HostIp: '', HostPort: '' }],
    });
    assert.deepEqual(body.HostConfig!.Binds, ['data:/data', '/host:/ro:ro']);
    assert.deepEqual(body.HostConfig!.RestartPolicy, { Name: 'unless-stopped' });
    assert.equal(createBody(base).Cmd, undefined, 'no command: the image default');
  });

  test('says which line is wrong', () => {
    assert.throws(() => createBody({ ...base, ports: 'eighty' }), /port "eighty"/);
    assert.throws(() => createBody({ ...base, env: 'NOEQUALS' }), /environment "NOEQUALS"/);
    assert.throws(() => createBody({ ...base, volumes: '/only' }), /volume "\/only"/);
    assert.throws(
      () => createBody({ ...base, image: ' ', env: 'X', labels: '=v', workdir: 'rel' }),
      (err: Error & { problems?: string[] }) =>
        err.problems?.length === 4 &&
        /label "=v"/.test(err.message) &&
        /working directory "rel"/.test(err.message),
      'every problem at once',
    );
    assert.deepEqual(splitCommand(`echo 'a b' c`), ['echo', 'a b', 'c']);
  });
});

describe('pull progress', () => {
  test('one row per layer, updated in place; errors kept', () => {
    let p = { layers: [], messages: [] } as Parameters<typeof fold>[0];
    p = fold(p, { status: 'Pulling from e2e/busybox', id: '1.0' });
    p = fold(p, { status: 'Downloading', id: 'abc', progressDetail: { current: 10, total: 100 } });
    p = fold(p, { status: 'Downloading', id: 'abc', progressDetail: { current: 60, total: 100 } });
    p = fold(p, { status: 'Pull complete', id: 'abc', progressDetail: {} });
    assert.equal(p.layers.length, 1);
    assert.equal(p.layers[0].status, 'Pull complete');
    assert.deepEqual(p.messages, ['1.0: Pulling from e2e/busybox']);
    p = fold(p, { error: 'manifest unknown', errorDetail: { message: 'manifest unknown' } } as never);
    assert.equal(p.error, 'manifest unknown');
  });
});

describe('image layers', () => {
  test("a layer's changes as a tree: directories first, counts and bytes rolled up", () => {
    const root = layerTree([
      { path: 'usr/bin/tool', kind: 'added', type: 'file', size: 100 },
      { path: 'etc/motd', kind: 'removed', type: 'file', size: 7 },
      { path: 'usr/bin/old', kind: 'changed', type: 'file', size: 20 },
      { path: 'README', kind: 'added', type: 'file', size: 5 },
    ]);
    assert.deepEqual(
      root.children.map((n) => n.name),
      ['etc', 'usr', 'README'],
    );
    const usr = root.children[1];
    assert.deepEqual(usr.counts, { added: 1, changed: 1, removed: 0, opaque: 0 });
    assert.equal(usr.bytes, 120);
    assert.equal(usr.children[0].path, 'usr/bin');
    assert.deepEqual(
      usr.children[0].children.map((n) => n.name),
      ['old', 'tool'],
    );
    // A removed file adds no bytes.
    assert.equal(root.bytes, 125);
    assert.equal(root.counts.removed, 1);
  });

  test('history steps are paired with layers only when they can be told apart', () => {
    const h = (CreatedBy: string, Size: number) => ({ CreatedBy, Size }) as ImageHistoryItem;
    // Newest first, as the API answers; ENV made no layer and has no size.
    const history = [h('RUN b', 10), h('ENV X=1', 0), h('ADD a', 30)];
    assert.deepEqual(layerHistory(history, 2), ['ADD a', 'RUN b']);
    assert.deepEqual(layerHistory(history, 3), ['ADD a', 'ENV X=1', 'RUN b']);
    assert.deepEqual(layerHistory(history, 1), [undefined]);
  });

  test('a saved image is named after it', () => {
    assert.equal(archiveName('127.0.0.1:5000/app:1.0'), '127.0.0.1_5000_app_1.0.tar');
    assert.equal(archiveName(`sha256:${'a'.repeat(64)}`), `${'a'.repeat(12)}.tar`);
  });
});

describe('scroll scale', () => {
  const ROW = 18;
  const VIEW = 700;

  test('a list that fits scrolls one content px per px', () => {
    const s = scrollScale(400_000 * ROW, VIEW);
    assert.deepEqual([s.space, s.ratio], [400_000 * ROW, 1]);
    assert.equal(offsetAt(s, 12_345), 12_345);
    assert.equal(scrollTopFor(s, 12_345), 12_345);
    assert.equal(rowsPlace(12_345, 12_345, 12_240), 12_240);
  });

  test('10,000,000 rows: a space of safe height whose two ends show the first and the last row', () => {
    const lines = 10_000_000;
    const s = scrollScale(lines * ROW, VIEW);
    assert.equal(s.space, MAX_SPACE);
    assert.ok(s.space < 33_554_428 && s.ratio > 20);
    const maxTop = s.space - VIEW;
    // The top shows row 0; the last scroll position shows the last row at the view's bottom.
    assert.equal(offsetAt(s, 0), 0);
    const end = offsetAt(s, maxTop);
    assert.equal(Math.floor((end + VIEW - 1) / ROW), lines - 1);
    assert.equal(end, lines * ROW - VIEW);
    // Beyond either end is the end.
    assert.equal(offsetAt(s, maxTop + 5000), end);
    assert.equal(clampOffset(s, -1), 0);
    assert.equal(scrollTopFor(s, Infinity), maxTop);
    assert.equal(scrollTopFor(s, -Infinity), 0);
    // The middle of the space is the middle of the content; a row's own position maps back to
    // a scroll position that shows it (within one scroll px of content: `ratio` px).
    assert.ok(Math.abs(offsetAt(s, maxTop / 2) - end / 2) < 1);
    const row = 5_000_000 * ROW;
    assert.ok(Math.abs(offsetAt(s, scrollTopFor(s, row)) - row) <= s.ratio / 2);
    // The rows rendered from the one before the view's top: placed so that content position
    // sits at the view's top, wherever the space is scrolled.
    const top = scrollTopFor(s, row + 7);
    assert.equal(rowsPlace(top, row + 7, row - ROW) - top, -ROW - 7);
  });

  test('the wheel and keys move the content as in an ordinary list, never more than a screen', () => {
    assert.equal(wheelDelta(100, 0, ROW, VIEW), 100);
    assert.equal(wheelDelta(-3, 1, ROW, VIEW), -3 * ROW);
    assert.equal(wheelDelta(1, 2, ROW, VIEW), VIEW);
    assert.equal(wheelDelta(50_000, 0, ROW, VIEW), VIEW);
    assert.equal(wheelDelta(-50_000, 0, ROW, VIEW), -VIEW);
    assert.equal(keyDelta('ArrowDown', false, VIEW), 40);
    assert.equal(keyDelta('PageUp', false, VIEW), -(VIEW - 40));
    assert.equal(keyDelta(' ', true, VIEW), keyDelta('PageUp', false, VIEW));
    assert.equal(keyDelta('End', false, VIEW), Infinity);
    assert.equal(keyDelta('Home', false, VIEW), -Infinity);
    assert.equal(keyDelta('a', false, VIEW), undefined);
  });
});

describe('chart scale', () => {
  const percent = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} %`;
  test('a flat line near zero is not labelled "0.0 %" at both ends', () => {
    assert.notEqual(percent(scaleTop(0.004, percent)), percent(0));
    assert.ok(scaleTop(0.004, percent) >= 0.004, 'still above the largest value');
    assert.equal(scaleTop(37, percent), 50, 'a round top above the largest value');
    assert.equal(scaleTop(0, percent), 1);
  });
});

describe('run form networks, tmpfs, env file and ports', () => {
  const base = { ...emptyRunForm, image: 'busybox' };
  test('the first network at create with its aliases, the others connected later', () => {
    const form = {
      ...base,
      networks: [
        { name: 'front', aliases: 'web, api' },
        { name: 'back', aliases: 'db' },
      ],
      tmpfs: '/run/cache:size=64m\n/scratch',
    };
    const body = createBody(form);
    assert.equal(body.HostConfig!.NetworkMode, 'front');
    assert.deepEqual(body.NetworkingConfig, { EndpointsConfig: { front: { Aliases: ['web', 'api'] } } });
    assert.deepEqual(laterNetworks(form), [{ name: 'back', aliases: ['db'] }]);
    assert.deepEqual(body.HostConfig!.Tmpfs, { '/run/cache': 'size=64m', '/scratch': '' });
    assert.equal(createBody(base).HostConfig!.NetworkMode, 'bridge', 'nothing picked: bridge');
  });
  test('says what cannot work', () => {
    assert.throws(
      () =>
        createBody({
          ...base,
          networks: [
            { name: 'host', aliases: '' },
            { name: 'front', aliases: '' },
          ],
        }),
      /network host cannot be joined with others/,
    );
    assert.throws(
      () => createBody({ ...base, networks: [{ name: 'bridge', aliases: 'x' }] }),
      /not on bridge/,
    );
    assert.throws(() => createBody({ ...base, tmpfs: 'relative' }), /tmpfs "relative"/);
  });
  test('an env file as docker run --env-file reads it; the host ports to check', () => {
    assert.deepEqual(envFileLines('# comment\nA=1\n\n  B=2  \n'), ['A=1', 'B=2']);
    assert.deepEqual(hostPorts('8080:80\n127.0.0.1:5353:53/udp\n9000\nbad'), [8080, 5353]);
  });
});

describe('network and volume forms', () => {
  test('a network body as docker network create sends it; wrong fields named', () => {
    const body = networkBody({
      ...emptyNetworkForm,
      name: 'front',
      subnet: '10.9.0.0/24',
      gateway: '10.9.0.1',
      internal: true,
      labels: 'team=a',
      options: 'com.docker.network.driver.mtu=1400',
    });
    assert.deepEqual(body.IPAM, {
      Driver: 'default',
      Config: [{ Subnet: '10.9.0.0/24', Gateway: '10.9.0.1' }],
    });
    assert.equal(body.Internal, true);
    assert.deepEqual(body.Labels, { team: 'a' });
    assert.deepEqual(body.Options, { 'com.docker.network.driver.mtu': '1400' });
    assert.throws(
      () => networkBody({ ...emptyNetworkForm, name: 'x y', subnet: '10.9.0.0', gateway: '1.2.3' }),
      (err: Error & { problems?: string[] }) => err.problems?.length === 3,
    );
  });

  test('IPv6: its subnet and gateway in a second IPAM config; without a subnet the form says what to give', () => {
    const body = networkBody({
      ...emptyNetworkForm,
      name: 'dual',
      subnet: '10.9.0.0/24',
      ipv6: true,
      subnet6: 'fd00:9::/64',
      gateway6: 'fd00:9::1',
    });
    assert.equal(body.EnableIPv6, true);
    assert.deepEqual(body.IPAM?.Config, [
      { Subnet: '10.9.0.0/24' },
      { Subnet: 'fd00:9::/64', Gateway: 'fd00:9::1' },
    ]);
    assert.deepEqual(
      networkBody({ ...emptyNetworkForm, name: 'v6', ipv6: true, subnet6: 'fd00::/48' }).IPAM,
      {
        Driver: 'default',
        Config: [{ Subnet: 'fd00::/48' }],
      },
    );
    const problems = (f: Partial<typeof emptyNetworkForm>) => {
      try {
        networkBody({ ...emptyNetworkForm, name: 'v6', ipv6: true, ...f });
        return [];
      } catch (err) {
        return (err as { problems: string[] }).problems;
      }
    };
    assert.deepEqual(problems({}), [
      'IPv6 needs an IPv6 subnet, such as fd00:1::/64: the engine has no default one',
    ]);
    assert.deepEqual(problems({ subnet6: 'fd00::1::/64', gateway6: '10.0.0.1' }), [
      'IPv6 subnet "fd00::1::/64" is not an IPv6 CIDR such as fd00:1::/64',
      'IPv6 gateway "10.0.0.1" is not an IPv6 address',
    ]);
    // Left over from a ticked box, the IPv6 fields go unsent once it is unticked.
    assert.equal(networkBody({ ...emptyNetworkForm, name: 'v4', subnet6: 'junk' }).IPAM, undefined);
  });
  test("a volume body with the local driver's tmpfs and bind options", () => {
    assert.deepEqual(volumeBody({ ...emptyVolumeForm, name: 'v1', kind: 'tmpfs', size: '64m' }).DriverOpts, {
      type: 'tmpfs',
      device: 'tmpfs',
      o: 'size=64m',
    });
    assert.deepEqual(volumeBody({ ...emptyVolumeForm, kind: 'bind', folder: '/srv/x' }).DriverOpts, {
      type: 'none',
      device: '/srv/x',
      o: 'bind',
    });
    assert.throws(() => volumeBody({ ...emptyVolumeForm, kind: 'bind', folder: 'rel' }), /absolute path/);
  });
  test('an engine\'s "volume is in use" names the containers, not their ids', () => {
    const id = 'a'.repeat(64);
    const text = inUseMessage(`remove data: volume is in use - [${id}]`, (i) =>
      i === id ? 'web' : undefined,
    );
    assert.equal(text, 'The volume is in use by web: remove that container first (stopping is not enough).');
    assert.doesNotMatch(text!, /a{64}/);
  });
});

describe('relative times of the containers list', () => {
  test('a status counts on from its fetch, and says when its state began', () => {
    const fetchedAt = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(statusAt('Up 2 minutes (Paused)', fetchedAt, fetchedAt + 60_000), 'Up 3 minutes (Paused)');
    assert.equal(
      statusAt('Exited (0) 5 seconds ago', fetchedAt, fetchedAt + 10_000),
      'Exited (0) 15 seconds ago',
    );
    assert.equal(statusSince('Up 2 minutes', fetchedAt), fetchedAt - 120_000);
    assert.equal(statusSince('Created', fetchedAt), fetchedAt);
  });

  test('the clocks move on the beat of a screen while it beats, and on their own timer once it stops', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const ticks: number[] = [];
      let now = 0;
      const advance = (ms: number) => {
        now += ms;
        mock.timers.tick(ms);
      };
      const stop = onClockTick(5000, () => ticks.push(now));
      advance(5000);
      assert.deepEqual(ticks, [5000], 'its own timer');
      advance(1000);
      readClocksOnBeat(5000);
      assert.deepEqual(ticks, [5000, 6000], 'read in the task of the beat');
      // The next beat is late by its request's time: the timer does not wake before it.
      advance(5050);
      readClocksOnBeat(5000);
      assert.deepEqual(ticks, [5000, 6000, 11050]);
      // No beat comes: the timer wakes a grace period after the one expected, then every period.
      advance(6000);
      assert.deepEqual(ticks, [5000, 6000, 11050, 17050]);
      advance(5000);
      assert.deepEqual(ticks, [5000, 6000, 11050, 17050, 22050]);
      stop();
      advance(20_000);
      readClocksOnBeat(5000);
      assert.equal(ticks.length, 5, 'nothing once stopped');
    } finally {
      mock.timers.reset();
    }
  });
});
