// An event subscription against a containerd that is not there (as while svcd's containerd
// restarts): the failure belongs to whoever reads the subscription, never to the process.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UnavailableError } from '../../api/errors';
import { ContainerdClient } from './client';

test('a subscription whose stream fails before it is read fails the read, not the process', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-events-'));
  const client = ContainerdClient.connect(join(dir, 'containerd.sock'), 'svc');
  try {
    const sub = client.events.subscribe();
    // Nothing reads it while the connection fails (svcd reconciles first after subscribing again).
    await new Promise((r) => setTimeout(r, 1000));
    await assert.rejects(async () => {
      for await (const envelope of sub) assert.fail(`an event from nowhere: ${envelope.topic}`);
    }, UnavailableError);
  } finally {
    client.close();
    await rm(dir, { recursive: true, force: true });
  }
});
