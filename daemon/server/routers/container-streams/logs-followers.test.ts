// Fifty clients following one container's logs while it writes: each gets every line, in order,
// the lines it joined after as well as those written before, and every stream ends at the exit.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { describe, test } from 'node:test';
import { expectStatus, run, useEngine } from '../../../testing/containers-fixture';
import { pollUntil } from '../../../testing/poll';
import { FrameParser, StdStream } from '../../streams/stdcopy';

const followers = 50;

/** A `docker logs -f` client: the stdout it has received so far, and a promise of its end. */
interface Follower {
  stdout: string;
  ended: Promise<void>;
}

function follow(socketPath: string, id: string): Follower {
  const parser = new FrameParser();
  const follower: Follower = { stdout: '', ended: Promise.resolve() };
  follower.ended = new Promise((resolve, reject) => {
    const req = get({ socketPath, path: `/containers/${id}/logs?stdout=1&stderr=1&follow=1` }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`logs answered ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        for (const frame of parser.push(chunk)) {
          if (frame.stream === StdStream.stdout) follower.stdout += frame.payload.toString();
          else reject(new Error(`stderr: ${frame.payload.toString()}`));
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return follower;
}

describe('logs under many followers', () => {
  const engine = useEngine();

  test(
    '50 concurrent followers each get every line in order and end when the container exits',
    { timeout: 120_000 },
    async () => {
      const { svcd } = engine();
      // Writes numbered lines until SIGUSR1, then a last line and exits.
      const id = await run(svcd, {
        Cmd: [
          'sh',
          '-c',
          "trap 'echo end; exit 0' USR1; i=0; while :; do i=$((i+1)); echo line $i; sleep 0.01; done",
        ],
      });
      const all = Array.from({ length: followers }, () => follow(svcd.socket, id));
      // Every follower joined while lines were being written (it has some, more are coming).
      await pollUntil(
        'every follower receiving lines',
        async () => (all.every((f) => f.stdout.includes('line 1\n')) ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 20 },
      );
      const seen = Math.min(...all.map((f) => f.stdout.split('\n').length));
      await pollUntil(
        'lines written after every follower joined',
        async () => (all.every((f) => f.stdout.split('\n').length > seen + 200) ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 20 },
      );
      expectStatus(await svcd.request('POST', `/containers/${id}/kill?signal=USR1`), 204);
      await Promise.all(all.map((f) => f.ended));

      const lines = all[0].stdout.split('\n').slice(0, -2);
      assert.ok(lines.length > 20, `only ${lines.length} lines written`);
      assert.deepEqual(
        lines,
        lines.map((_, i) => `line ${i + 1}`),
        'numbered lines, none lost, repeated or reordered',
      );
      const written = `${lines.join('\n')}\nend\n`;
      for (const [i, f] of all.entries()) assert.equal(f.stdout, written, `follower ${i}`);
      const logs = await svcd.request('GET', `/containers/${id}/logs?stdout=1`);
      const text = new FrameParser()
        .push(logs.body)
        .map((f) => f.payload.toString())
        .join('');
      assert.equal(text, written, 'followers got what the log holds');
      console.log(`${followers} followers, ${lines.length + 1} lines each`);
    },
  );
});
