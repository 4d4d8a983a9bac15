// POST /build and /build/prune: the context received (a tar in the body, or a remote: a tar or
// instructions file over http(s), or a git repository), the instructions file parsed and checked
// before any step runs, the build run, its image named. Each build works in its own directory
// under the data root, removed when it ends, whatever the outcome.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BuildPruneResponse, BuildRequest } from '../../api/build-types';
import { InvalidParameterError } from '../../api/errors';
import { resolveInRoot } from '../../lib/tar/confine-path';
import { peek } from '../../lib/tar/decompress';
import { familiarString, parseImageAndTag, referenceString, withDefaultTag } from '../shared/reference';
import { BuildCache } from './build-cache';
import { BuildContext } from './build-context';
import type { BuildContainers, BuildImages } from './build-ports';
import { Builder } from './builder';
import { planBuild } from './instructions';
import { download } from './remote-file';
import { parseSvcfile } from './svcfile-parser';

const run = promisify(execFile);

export interface BuildServiceDeps {
  dataRoot: string;
  images: BuildImages;
  containers: BuildContainers;
  /** Removes the images the cache named that nothing else holds; answers their IDs and the bytes freed. */
  pruneImages: (ids: string[]) => Promise<{ deleted: string[]; reclaimed: number }>;
}

const short = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);

/** Docker's rule for what a `remote` is: a git repository, or else a URL to download. */
function isGitUrl(remote: string): boolean {
  return (
    /^git@[^:]+:/.test(remote) ||
    /^git:\/\//.test(remote) ||
    /^github\.com\//.test(remote) ||
    (/^https?:\/\//.test(remote) && /\.git(?:#.*)?$/.test(remote))
  );
}

/** Whether the first bytes of a download are an archive (compressed, or a tar's ustar magic). */
function looksLikeArchive(head: Buffer): boolean {
  const compressed = [
    [0x1f, 0x8b],
    [0x42, 0x5a, 0x68],
    [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
  ].some((magic) => magic.every((b, i) => head[i] === b));
  return compressed || (head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar');
}

export class BuildService {
  private readonly cache: BuildCache;

  constructor(private readonly deps: BuildServiceDeps) {
    this.cache = new BuildCache(join(deps.dataRoot, 'build-cache'));
  }

  async build(req: BuildRequest): Promise<void> {
    // Names are checked first: a bad tag should not cost a whole build.
    const tags = req.tags.map((t) => withDefaultTag(parseImageAndTag(t)));
    const dir = join(this.deps.dataRoot, 'tmp', 'build', randomBytes(8).toString('hex'));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      const context = await this.receive(req, join(dir, 'context'));
      const file = await context.instructions(req.instructionsFile);
      const parsed = parseSvcfile(file.text, file.label);
      const plan = planBuild(parsed, file.label);
      await context.applyIgnoreFile();
      for (const warning of parsed.warnings) if (!req.quiet) req.emit({ stream: `${warning}\n` });
      const builder = new Builder(
        { images: this.deps.images, containers: this.deps.containers, cache: this.cache },
        req,
        plan,
        context,
        parsed.escape,
      );
      const id = await builder.run();
      if (req.announceId) req.emit({ aux: { ID: id } });
      req.emit({ stream: req.quiet ? `${id}\n` : `Successfully built ${short(id)}\n` });
      for (const ref of tags) {
        await this.deps.images.tag(id, referenceString(ref));
        if (!req.quiet) req.emit({ stream: `Successfully tagged ${familiarString(ref)}\n` });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async receive(req: BuildRequest, root: string): Promise<BuildContext> {
    if (!req.remote) return BuildContext.receive(req.body, root, { signal: req.signal });
    req.body.resume();
    if (isGitUrl(req.remote)) return this.clone(req.remote, root);
    if (!/^https?:\/\//i.test(req.remote)) {
      throw new InvalidParameterError(
        `unable to prepare context: remote ${JSON.stringify(req.remote)} is not an http(s) or git URL`,
      );
    }
    const { body } = await download(req.remote, req.signal);
    const { head, stream } = await peek(body, 262);
    if (looksLikeArchive(head)) return BuildContext.receive(stream, root, { signal: req.signal });
    // A single file: it is the instructions file of an otherwise empty context.
    await mkdir(root, { recursive: true, mode: 0o700 });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > 16 << 20)
        throw new InvalidParameterError('the remote instructions file is larger than 16 MiB');
      chunks.push(chunk as Buffer);
    }
    await writeFile(join(root, 'Dockerfile'), Buffer.concat(chunks), { mode: 0o600 });
    req.instructionsFile = 'Dockerfile';
    return BuildContext.fromDirectory(root);
  }

  /** `url#ref:dir`: the ref fetched shallowly (a branch, tag or commit), the context in dir. */
  private async clone(remote: string, root: string): Promise<BuildContext> {
    const hash = remote.indexOf('#');
    const url = hash < 0 ? remote : remote.slice(0, hash);
    const [ref = '', subdir = ''] = hash < 0 ? [] : remote.slice(hash + 1).split(':', 2);
    const fetchUrl = url.startsWith('github.com/') ? `https://${url}` : url;
    const git = (args: string[]) =>
      run('git', ['-c', 'protocol.ext.allow=never', '-c', 'protocol.file.allow=never', ...args], {
        cwd: root,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      }).catch((err: { stderr?: string; code?: string }) => {
        if (err.code === 'ENOENT')
          throw new InvalidParameterError('unable to prepare context: git is not installed');
        throw new InvalidParameterError(
          `unable to prepare context: git ${args[0]} failed: ${(err.stderr ?? '').trim()}`,
        );
      });
    await mkdir(root, { recursive: true, mode: 0o700 });
    await git(['init', '-q']);
    await git(['remote', 'add', 'origin', fetchUrl]);
    // Shallow where the server can (dumb http cannot), whole otherwise, as dockerd does.
    await git(['fetch', '-q', '--depth', '1', 'origin', ref || 'HEAD']).catch(() =>
      git(['fetch', '-q', 'origin', ref || 'HEAD']),
    );
    await git(['checkout', '-q', 'FETCH_HEAD']);
    await rm(join(root, '.git'), { recursive: true, force: true });
    const dir = subdir ? await resolveInRoot(root, subdir, { followFinal: true }) : root;
    return BuildContext.fromDirectory(dir);
  }

  /** POST /build/prune: the cache forgotten, and the images it held that nothing else uses. */
  async prune(): Promise<BuildPruneResponse> {
    const ids = await this.cache.clear();
    const { deleted, reclaimed } = await this.deps.pruneImages(ids);
    return { CachesDeleted: deleted.length > 0 ? deleted : null, SpaceReclaimed: reclaimed };
  }
}
