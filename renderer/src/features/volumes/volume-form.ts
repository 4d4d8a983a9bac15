// The create-volume dialog's fields turned into a POST /volumes/create body, as `docker volume
// create` would: the local driver's tmpfs (with its size) and bind of a host folder as the
// type/device/o options it reads, further options and labels as KEY=VALUE lines.
import { FormErrors, keyValues } from '../../app/ui/form-input';

export interface VolumeForm {
  name: string;
  driver: string;
  kind: 'plain' | 'tmpfs' | 'bind';
  size: string;
  folder: string;
  options: string;
  labels: string;
}

export const emptyVolumeForm: VolumeForm = {
  name: '',
  driver: 'local',
  kind: 'plain',
  size: '',
  folder: '',
  options: '',
  labels: '',
};

export function volumeBody(f: VolumeForm) {
  const problems: string[] = [];
  const name = f.name.trim();
  if (name && !/^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/.test(name))
    problems.push(`name "${name}" must be two or more letters, digits, "_", "." or "-"`);
  const driver = f.driver.trim() || 'local';
  const opts = keyValues(f.options, 'option', problems);
  if (f.kind !== 'plain' && driver !== 'local')
    problems.push(`tmpfs and bind are options of the local driver, not ${driver}`);
  if (f.kind === 'tmpfs') {
    const size = f.size.trim();
    if (size && !/^\d+[kmg]?$/i.test(size)) problems.push(`size "${size}" is not a number with k, m or g`);
    Object.assign(opts, { type: 'tmpfs', device: 'tmpfs', ...(size && { o: `size=${size}` }) });
  }
  if (f.kind === 'bind') {
    const folder = f.folder.trim();
    if (!folder.startsWith('/')) problems.push('the host folder must be an absolute path');
    Object.assign(opts, { type: 'none', device: folder, o: 'bind' });
  }
  const labels = keyValues(f.labels, 'label', problems);
  if (problems.length) throw new FormErrors(problems);
  return { Name: name || undefined, Driver: driver, DriverOpts: opts, Labels: labels };
}

/**
 * An engine's "volume is in use - [id, …]" made readable: the containers' names for their ids,
 * and what to do about it.
 */
export function inUseMessage(
  message: string,
  nameOf: (id: string) => string | undefined,
): string | undefined {
  const m = /volume is in use - \[([^\]]*)\]/.exec(message);
  if (!m) return undefined;
  const names = m[1]
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((id) => nameOf(id) ?? id.slice(0, 12));
  return `The volume is in use by ${names.join(', ')}: remove ${names.length === 1 ? 'that container' : 'those containers'} first (stopping is not enough).`;
}
