// An htpasswd file (bcrypt entries, as `htpasswd -B` writes them) for tests of registry auth.
import { writeFile } from 'node:fs/promises';
import bcrypt from 'bcryptjs';

export async function writeHtpasswd(path: string, users: Record<string, string>): Promise<void> {
  // htpasswd -B writes $2y$ hashes; bcryptjs writes $2b$, the same algorithm.
  const lines = Object.entries(users).map(
    ([user, password]) => `${user}:${bcrypt.hashSync(password, 5).replace(/^\$2b\$/, '$2y$')}`,
  );
  await writeFile(path, lines.join('\n') + '\n');
}
