// The images a build starts from: a stage's base found locally or pulled with the credentials
// of the build's X-Registry-Config, as the classic builder's image context.
import type { BuildRequest } from '../../api/build-types';
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import { parseImageAndTag } from '../shared/reference';
import type { BuildImage, BuildImages } from './build-ports';

export class ImageContext {
  constructor(
    private readonly images: BuildImages,
    private readonly req: BuildRequest,
  ) {}

  async image(id: string): Promise<BuildImage> {
    const image = await this.images.find(id);
    if (!image) throw new NotFoundError(`No such image: ${id}`);
    return image;
  }

  /** A FROM's image: the local one (unless the build pulls), else pulled with the build's auth. */
  async baseImage(name: string): Promise<BuildImage> {
    const local = this.req.pull ? undefined : await this.images.find(name);
    if (local) return local;
    const ref = parseImageAndTag(name);
    await this.images.pull(
      name,
      this.authFor(ref.domain),
      this.req.quiet ? () => undefined : this.req.emit,
      this.req.signal,
    );
    return this.image(name);
  }

  /** The X-Registry-Config entry for a registry, as an X-Registry-Auth value. */
  private authFor(domain: string): string | undefined {
    if (!this.req.registryConfig) return undefined;
    let configs: Record<string, unknown>;
    try {
      configs = JSON.parse(Buffer.from(this.req.registryConfig, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
    } catch {
      throw new InvalidParameterError('invalid X-Registry-Config header: not base64-encoded JSON');
    }
    const hub = domain === 'docker.io';
    const key = Object.keys(configs ?? {}).find((k) => {
      const host = k.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
      return host === domain || (hub && (host === 'index.docker.io' || host === 'registry-1.docker.io'));
    });
    return key ? Buffer.from(JSON.stringify(configs[key])).toString('base64url') : undefined;
  }
}
