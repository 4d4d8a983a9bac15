// What a registry keeps, seen through its own storage driver, so a suite's checks read the same
// on the filesystem and on S3.
import type { StorageDriver } from '../storage/driver';

/** Paths of every file under `dir`, relative to it, sorted. */
export async function filesUnder(driver: StorageDriver, dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const name of await driver.list(rel ? `${dir}/${rel}` : dir)) {
      const child = rel ? `${rel}/${name}` : name;
      if ((await driver.stat(`${dir}/${child}`))?.isDirectory) await walk(child);
      else out.push(child);
    }
  };
  await walk('');
  return out.sort();
}
