// The deb's system-engine files (packaging/linux), checked without building the package (the
// build machine cannot download Electron): electron-builder.yml names them, the unit passes
// `systemd-analyze verify` but for the app's binary (not installed here), and the maintainer
// scripts, rendered as electron-builder renders its templates, pass shellcheck and `sh -n`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dir = join(root, 'packaging', 'linux');
const builderYml = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
const unit = readFileSync(join(dir, 'svcd.service'), 'utf8');
const scripts = ['after-install.sh', 'after-remove.sh'];
// electron-builder's names for the install directory and the binary, as this config makes them.
const macros = { sanitizedProductName: 'Svc Desktop', executable: 'svc-desktop' };
const tmp = mkdtempSync(join(tmpdir(), 'packaging-test-'));

const onPath = (tool) => ['/usr/bin', '/bin', '/usr/sbin'].some((d) => existsSync(join(d, tool)));

/** A maintainer script as electron-builder writes it into the package: every macro replaced. */
function rendered(name) {
  return readFileSync(join(dir, name), 'utf8').replace(/\$\{([a-zA-Z]+)\}/g, (_, macro) => {
    assert.ok(macro in macros, `${name}: electron-builder has no macro \${${macro}}`);
    return macros[macro];
  });
}

describe('deb packaging of the system engine', () => {
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test('electron-builder.yml installs the unit and runs the scripts, and the unit runs what it installs', () => {
    assert.match(builderYml, /^productName: Svc Desktop$/m);
    assert.match(builderYml, /^ {2}executableName: svc-desktop$/m);
    assert.match(builderYml, /^ {2}afterInstall: packaging\/linux\/after-install\.sh$/m);
    assert.match(builderYml, /^ {2}afterRemove: packaging\/linux\/after-remove\.sh$/m);
    assert.match(
      builderYml,
      /^ {4}- packaging\/linux\/svcd\.service=\/lib\/systemd\/system\/svcd\.service$/m,
    );
    // svcd.js is unpacked from the asar (asarUnpack build/daemon/**), where the unit runs it, with
    // package.json (by which it finds its root) and build/native (the shim's log writer).
    const unpacked = /^asarUnpack:\n((?: {2}- .*\n)+)/m.exec(builderYml)?.[1] ?? '';
    for (const entry of ['package.json', 'build/daemon/**', 'build/native/**'])
      assert.ok(unpacked.includes(`  - ${entry}\n`), `asarUnpack lists ${entry}: ${unpacked}`);
    const execStart = /^ExecStart=(.*)$/m.exec(unit)[1];
    const base = `/opt/${macros.sanitizedProductName}`;
    assert.ok(execStart.startsWith(`"${base}/${macros.executable}" `), execStart);
    assert.ok(
      execStart.includes(`"${base}/resources/app.asar.unpacked/build/daemon/bin/svcd.js"`),
      execStart,
    );
    // The socket the app looks for first, owned by the group the postinst makes.
    assert.ok(execStart.endsWith('--host unix:///run/svc/svcd.sock --group svc'), execStart);
    assert.match(rendered('after-install.sh'), /^ {2}groupadd --system svc$/m);
  });

  test(
    'systemd-analyze verify finds nothing wrong but the missing app binary',
    { skip: !onPath('systemd-analyze') && 'no systemd-analyze' },
    () => {
      const copy = join(tmp, 'svcd.service');
      writeFileSync(copy, unit);
      const r = spawnSync('systemd-analyze', ['verify', '--man=no', copy], { encoding: 'utf8' });
      const problems = `${r.stdout}${r.stderr}`
        .split('\n')
        .filter(
          (l) =>
            l &&
            !l.includes(`Command /opt/${macros.sanitizedProductName}/${macros.executable} is not executable`),
        );
      assert.deepEqual(problems, []);
    },
  );

  for (const name of scripts) {
    test(
      `${name} parses and passes shellcheck`,
      { skip: !onPath('shellcheck') && 'no shellcheck (scripts/setup.mjs installs it)' },
      () => {
        const file = join(tmp, name);
        writeFileSync(file, rendered(name));
        const parse = spawnSync('sh', ['-n', file], { encoding: 'utf8' });
        assert.equal(parse.status, 0, parse.stderr);
        const check = spawnSync('shellcheck', ['--shell=sh', '--severity=style', file], { encoding: 'utf8' });
        assert.equal(check.status, 0, check.stdout);
      },
    );
  }
});
