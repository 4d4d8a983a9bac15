// The engine's stable identity, created once per data root (docker info's ID).
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-file';

export async function loadEngineId(dataRoot: string): Promise<string> {
  const file = join(dataRoot, 'engine-id');
  try {
    const id = (await readFile(file, 'utf8')).trim();
    if (id) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = randomUUID();
  await writeFileAtomic(file, `${id}\n`, 0o644);
  return id;
}
