// A build context from a folder the user chose (`<input webkitdirectory>`): its files with the
// ignore file applied, their size before anything is sent, and the archive POST /build takes.
import { tarEntries, type TarEntry } from '../../api/tar-writer';
import { ignoreTest } from './ignore-file';

const ignoreFiles = ['.svcignore', '.dockerignore'];
/** The names the engine looks for when no instructions file is given, in its order. */
const instructionNames = ['Svcfile', 'svcfile', 'Dockerfile', 'dockerfile'];

export interface FolderContext {
  /** The folder's own name. */
  folder: string;
  entries: TarEntry[];
  /** Bytes of the files that will be sent. */
  size: number;
  /** How many files the ignore file left out. */
  ignored: number;
  ignoreFile?: string;
  /** Files that look like instructions files, the engine's default first. */
  instructionFiles: string[];
}

/** A file of the folder and its path under the folder. */
export interface FolderFile {
  path: string;
  f: File;
}

/** The files an `<input webkitdirectory>` gives, each named from its path below the folder. */
export function pickedFolder(files: File[]): { folder: string; files: FolderFile[] } {
  const rel = (f: File) => f.webkitRelativePath || f.name;
  return {
    folder: files.length ? rel(files[0]).split('/')[0] : '',
    files: files.map((f) => ({ f, path: rel(f).split('/').slice(1).join('/') || f.name })),
  };
}

/** The folder's context; the instructions and ignore files always go, as the docker CLI sends them. */
export async function folderContext(folder: string, inFolder: FolderFile[]): Promise<FolderContext> {
  if (inFolder.length === 0)
    throw new Error(`${folder || 'The folder'} is empty: a build needs at least its instructions file.`);
  const ignoreEntry = ignoreFiles.map((n) => inFolder.find((e) => e.path === n)).find(Boolean);
  const ignored = ignoreEntry ? ignoreTest(await ignoreEntry.f.text()) : () => false;
  const instructionFiles = inFolder
    .map((e) => e.path)
    .filter((p) => /(^|\/)(svcfile|dockerfile)[^/]*$|\.(svcfile|dockerfile)$/i.test(p))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const kept = inFolder.filter(
    (e) => e.path === ignoreEntry?.path || instructionFiles.includes(e.path) || !ignored(e.path),
  );
  const entries = kept.map((e) => ({ path: e.path, file: e.f, mtime: Math.floor(e.f.lastModified / 1000) }));
  return {
    folder,
    entries,
    size: entries.reduce((n, e) => n + e.file.size, 0),
    ignored: inFolder.length - kept.length,
    ignoreFile: ignoreEntry?.path,
    instructionFiles,
  };
}

function rank(path: string): number {
  const i = instructionNames.indexOf(path);
  return i < 0 ? instructionNames.length : i;
}

export const contextArchive = (c: FolderContext): Blob => tarEntries(c.entries);
