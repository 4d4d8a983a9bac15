// A command run on a pseudo-terminal made by script(1), for the docker CLI's -it paths: it types
// each step's input once the output shows what the step waits for.
import { spawn } from 'node:child_process';

/** Runs `command` on a pseudo-terminal, types `input` once `prompt` shows, returns all output. */
export function onTerminal(
  env: NodeJS.ProcessEnv,
  command: string,
  steps: Array<{ wait: string; type: string }>,
): Promise<{ output: string; code: number | null }> {
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let step = 0;
  const advance = () => {
    while (step < steps.length && output.includes(steps[step].wait)) child.stdin.write(steps[step++].type);
  };
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    advance();
  });
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
  advance();
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code });
    }),
  );
}
