import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readCgroupSupport, readHostFacts } from './host-facts';

const root = mkdtempSync(join(tmpdir(), 'svc-cgroup-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('cgroup support follows the files the kernel exposes', async () => {
  mkdirSync(join(root, 'memory'));
  writeFileSync(join(root, 'memory', 'memory.limit_in_bytes'), '');
  mkdirSync(join(root, 'pids'));
  writeFileSync(join(root, 'pids', 'cgroup.procs'), '');
  const support = await readCgroupSupport(root);
  assert.equal(support.memoryLimit, true);
  assert.equal(support.pids, true);
  assert.equal(support.swapLimit, false);
  assert.equal(support.cpuCfs, false);
  assert.equal(support.kernelMemory, false);
});

test('host facts of this machine', async () => {
  const facts = await readHostFacts();
  assert.ok(facts.cpuCount >= 1);
  assert.match(facts.cpusetCpus, /^[\d,-]+$/);
  assert.ok(facts.capabilities.includes('CAP_SYS_ADMIN'));
  assert.ok(facts.capabilities.every((cap) => cap.startsWith('CAP_')));
});
