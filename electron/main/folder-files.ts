// A folder the user chose in the system dialog, read for the renderer's Build screen: every
// regular file under it with its path below the folder. Symbolic links are left out, as a
// browser's folder upload leaves them out, so both ways of choosing send the same context.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

export interface FolderFiles {
  folder: string;
  files: { path: string; data: Uint8Array; mtime: number }[];
}

/** What the renderer may be handed at once: past this the folder is refused, named, with its size. */
const maxBytes = 2 << 30;

export async function readFolderFiles(root: string): Promise<FolderFiles> {
  const files: FolderFiles['files'] = [];
  let total = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      const path = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(full, path);
      else if (e.isFile()) {
        const st = await stat(full);
        total += st.size;
        if (total > maxBytes)
          throw new Error(`${root} holds more than 2 GB: too large to send as a build context`);
        files.push({ path, data: await readFile(full), mtime: st.mtimeMs });
      }
    }
  };
  await walk(root, '');
  return { folder: basename(root), files };
}
