// The app's own preferences, kept as JSON in its data directory (written atomically).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DesktopSettings } from '../../daemon/api/desktop-types';

const defaults: DesktopSettings = { stopContainersOnQuit: false };

export class SettingsFile {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'settings.json');
  }

  read(): DesktopSettings {
    try {
      return { ...defaults, ...(JSON.parse(readFileSync(this.path, 'utf8')) as Partial<DesktopSettings>) };
    } catch {
      return { ...defaults };
    }
  }

  /** Keeps only known keys of the right type; returns what is now stored. */
  update(patch: Record<string, unknown>): DesktopSettings {
    const next = this.read();
    for (const key of Object.keys(defaults) as (keyof DesktopSettings)[]) {
      if (typeof patch[key] === typeof defaults[key]) next[key] = patch[key] as never;
    }
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(next, null, 2));
    renameSync(tmp, this.path);
    return next;
  }
}
