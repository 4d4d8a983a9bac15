// A volume as the Engine API describes it (GET /volumes, /system/df).

export interface Volume {
  Name: string;
  Driver: string;
  Mountpoint: string;
  CreatedAt: string;
  Labels: Record<string, string>;
  Scope: 'local' | 'global';
  Options: Record<string, string>;
  /** Present in /system/df: -1 where not computed, as the spec says. */
  UsageData?: { Size: number; RefCount: number } | null;
}
