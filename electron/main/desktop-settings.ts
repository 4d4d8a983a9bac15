// The app's own preferences, kept as JSON in its data directory (written atomically).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DesktopSettings, EngineModePreference } from '../../daemon/api/desktop-types';
import type { EngineConfig } from './engines/engine-spec';
import type { RegistryConfig } from './registries/registry-session';
import { isEngineModePreference } from './supervisor/engine-choice';

const defaults: DesktopSettings = { stopContainersOnQuit: false };

export class SettingsFile {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'settings.json');
  }

  /** The preferences the renderer may see: added engines and registries (with their secrets) are not. */
  read(): DesktopSettings {
    const stored = this.readFile();
    const next = { ...defaults };
    for (const key of Object.keys(defaults) as (keyof DesktopSettings)[]) {
      if (typeof stored[key] === typeof defaults[key]) next[key] = stored[key] as never;
    }
    return next;
  }

  /** Keeps only known keys of the right type; returns what is now stored. */
  update(patch: Record<string, unknown>): DesktopSettings {
    const next = this.read();
    for (const key of Object.keys(defaults) as (keyof DesktopSettings)[]) {
      if (typeof patch[key] === typeof defaults[key]) next[key] = patch[key] as never;
    }
    this.writeFile({ ...this.readFile(), ...next });
    return next;
  }

  /** The engines added in Settings, kept in the same file (checked when they were added). */
  readEngines(): EngineConfig[] {
    const engines = this.readFile().engines;
    return Array.isArray(engines) ? (engines as EngineConfig[]) : [];
  }

  writeEngines(engines: EngineConfig[]): void {
    this.writeFile({ ...this.readFile(), engines });
  }

  /** The registries added in the registry browser, credentials included (never sent to the renderer). */
  readRegistries(): RegistryConfig[] {
    const registries = this.readFile().registries;
    return Array.isArray(registries) ? (registries as RegistryConfig[]) : [];
  }

  writeRegistries(registries: RegistryConfig[]): void {
    this.writeFile({ ...this.readFile(), registries });
  }

  /** The engine mode picked in Settings (engine-choice.ts); `auto` until one is. */
  readEngineMode(): EngineModePreference {
    const mode = this.readFile().engineMode;
    return isEngineModePreference(mode) ? mode : 'auto';
  }

  writeEngineMode(engineMode: EngineModePreference): void {
    this.writeFile({ ...this.readFile(), engineMode });
  }

  private readFile(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  private writeFile(content: Record<string, unknown>): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    // Owner-only: the file holds registry passwords.
    writeFileSync(tmp, JSON.stringify(content, null, 2), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
