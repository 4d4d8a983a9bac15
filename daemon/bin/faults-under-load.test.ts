// Faults under load: svcd, svc-registry and svcd's containerd each killed with SIGKILL while
// containers churn, logs are followed and images and blobs go to the registry (fault-loop.ts).
// The default run kills each twice; `npm run soak -- --count 20` runs the long version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFaultLoop } from './testing/fault-loop';

const count = Number(process.env.SVC_SOAK_COUNT ?? 2);
const seed = Number(process.env.SVC_SOAK_SEED ?? Date.now() % 1_000_000);

test(`faults under load: each of svcd, svc-registry and containerd killed ${count} times`, async (t) => {
  t.diagnostic(`seed ${seed} (SVC_SOAK_SEED repeats the kill timing)`);
  const started = Date.now();
  // The soak's rounds also go to stderr as they happen: the report comes only at the end.
  const report = await runFaultLoop(count, seed, (line) => {
    t.diagnostic(line);
    if (process.env.SVC_SOAK_COUNT) process.stderr.write(`${line}\n`);
  });
  const { problems, kills, ...counts } = report;
  t.diagnostic(
    `kills: ${Object.entries(kills)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  for (const [name, n] of Object.entries(counts)) t.diagnostic(`${name}: ${n}`);
  t.diagnostic(`took ${Math.round((Date.now() - started) / 1000)} s`);
  assert.deepEqual(problems, []);
  assert.ok(counts.linesChecked > 0 && counts.blobsChecked > 0 && counts.uploadsResumed >= count);
});
