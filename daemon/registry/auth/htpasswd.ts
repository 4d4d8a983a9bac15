// An htpasswd file of bcrypt entries (htpasswd -B). bcrypt is slow by design, so a verified
// password is remembered by its SHA-256 for as long as the file's entry is unchanged.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';

export class Htpasswd {
  private readonly entries = new Map<string, string>();
  private readonly verified = new Map<string, string>();

  constructor(readonly path: string) {
    for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon <= 0 || line.startsWith('#')) continue;
      const hash = line.slice(colon + 1).trim();
      if (!/^\$2[abxy]\$/.test(hash))
        throw new Error(`${path}: ${line.slice(0, colon)} is not a bcrypt entry (use htpasswd -B)`);
      this.entries.set(line.slice(0, colon), hash);
    }
  }

  async verify(user: string, password: string): Promise<boolean> {
    const hash = this.entries.get(user);
    if (!hash) return false;
    const key = `${user}\0${createHash('sha256').update(password).digest('hex')}`;
    if (this.verified.get(key) === hash) return true;
    const ok = await bcrypt.compare(password, hash.replace(/^\$2y\$/, '$2b$'));
    if (ok) this.verified.set(key, hash);
    return ok;
  }
}
