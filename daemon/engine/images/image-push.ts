// POST /images/{name}/push and POST /auth: the registry client reads blobs straight from
// containerd's content store; blobs known to live in another repository of the same registry
// are mounted instead of uploaded.
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import type { AuthResponse, ImagePushRequest } from '../../api/image-types';
import { decodeAuthConfig, type AuthConfig } from './distribution/auth-config';
import { pushImage } from './distribution/push';
import { RegistryClient } from './distribution/registry-client';
import { ContentStore } from './content-store';
import type { ImageStore } from './image-store';
import { progressMessage } from './progress';
import {
  DEFAULT_REGISTRY_HOST,
  familiarString,
  parseImageAndTag,
  referenceString,
  repositoryName,
  type Reference,
} from '../shared/reference';
import type { ContainerdClient } from '../../runtime/containerd/client';

export interface PushContext {
  client: ContainerdClient;
  store: ImageStore;
  insecureRegistries: string[];
  userAgent: string;
  onPushed(ref: Reference): void;
}

export async function push(ctx: PushContext, args: ImagePushRequest): Promise<void> {
  const ref = parseImageAndTag(args.name, args.tag);
  if (ref.digest) throw new InvalidParameterError('cannot push a digest reference');
  const images = await ctx.store.list();
  // Without a tag, every local tag of the repository is pushed, as Docker does.
  const tagged = images.flatMap((image) =>
    image.names
      .filter(
        (n) => n.tag && n.domain === ref.domain && n.path === ref.path && (!ref.tag || n.tag === ref.tag),
      )
      .map((name) => ({ image, name })),
  );
  if (tagged.length === 0) {
    throw new NotFoundError(`An image does not exist locally with the tag: ${familiarString(ref)}`);
  }
  const registry = RegistryClient.forReference(ref, {
    auth: decodeAuthConfig(args.auth),
    insecureRegistries: ctx.insecureRegistries,
    userAgent: ctx.userAgent,
  });
  args.emit({ status: `The push refers to repository [${repositoryName(ref)}]` });
  const content = new ContentStore(ctx.client);
  for (const { image, name } of tagged) {
    const pushed = await pushImage({
      client: registry,
      repository: ref.path,
      tag: name.tag,
      // The platform manifest, as a single-platform store has it (Docker 20.10 does the same).
      target: image.manifest,
      source: content,
      onProgress: (event) => args.emit(progressMessage(event)),
      signal: args.signal,
      mountFrom: (desc) => content.sources(desc.digest, ref.domain),
    });
    for (const blob of [image.manifest, ...image.layers, { digest: image.id }]) {
      await content.addSource(blob.digest, ref.domain, ref.path).catch(() => undefined);
    }
    await ctx.store.setName(
      referenceString({ domain: ref.domain, path: ref.path, digest: pushed.digest }),
      image,
    );
    args.emit({ status: `${name.tag}: digest: ${pushed.digest} size: ${pushed.size}` });
    args.emit({ progressDetail: {}, aux: { Tag: name.tag, Digest: pushed.digest, Size: pushed.size } });
    ctx.onPushed(name);
  }
}

/** The registry host of a login's serveraddress (`https://index.docker.io/v1/` → Docker Hub's). */
function loginHost(serverAddress: string | undefined): string {
  const bare = (serverAddress ?? '').replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  if (bare === '' || /^(index\.|registry-1\.)?docker\.io$/.test(bare)) return DEFAULT_REGISTRY_HOST;
  return bare;
}

/** POST /auth: checks the credentials against the registry's /v2/ endpoint. */
export async function login(
  config: Record<string, unknown>,
  insecureRegistries: string[],
  userAgent: string,
  signal?: AbortSignal,
): Promise<AuthResponse> {
  const auth: AuthConfig = decodeAuthConfig(Buffer.from(JSON.stringify(config)).toString('base64url'));
  const registry = new RegistryClient({
    host: loginHost(auth.serveraddress),
    auth,
    insecureRegistries,
    userAgent,
  });
  await registry.checkAuth(signal);
  return { Status: 'Login Succeeded', IdentityToken: '' };
}
