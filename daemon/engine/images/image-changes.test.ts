import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChanges } from './image-changes';

test('shell and exec forms, ENV forms, quoting, and the original left untouched', () => {
  const base = { Env: ['PATH=/bin', 'A=old'] };
  const out = applyChanges(base, [
    'CMD ["a", "b"]',
    'ENTRYPOINT exec me',
    'ENV A=new C="with space" D=x\\ y',
    'ENV LEGACY some value',
    "LABEL 'quoted key'=v",
    'EXPOSE 8080/UDP 9000',
    'VOLUME ["/a", "/b"]',
    'stopsignal SIGINT',
  ]);
  assert.deepEqual(out.Cmd, ['a', 'b']);
  assert.deepEqual(out.Entrypoint, ['/bin/sh', '-c', 'exec me']);
  assert.deepEqual(out.Env, ['PATH=/bin', 'A=new', 'C=with space', 'D=x y', 'LEGACY=some value']);
  assert.deepEqual(out.Labels, { 'quoted key': 'v' });
  assert.deepEqual(out.ExposedPorts, { '8080/udp': {}, '9000/tcp': {} });
  assert.deepEqual(out.Volumes, { '/a': {}, '/b': {} });
  assert.equal(out.StopSignal, 'SIGINT');
  assert.deepEqual(base.Env, ['PATH=/bin', 'A=old']);
});

test('refuses what import cannot apply', () => {
  assert.throws(() => applyChanges({}, ['RUN make']), /RUN is not a valid change command/);
  assert.throws(() => applyChanges({}, ['EXPOSE eighty']), /invalid port/);
  assert.throws(() => applyChanges({}, ['ENV A="open']), /unmatched quote/);
  assert.throws(() => applyChanges({}, ['LABEL novalue']), /key=value/);
});
