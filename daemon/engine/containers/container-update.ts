// POST /containers/{id}/update: new cgroup limits (checked in validate-resources.ts, applied to the
// running task at once and kept in the spec for the next start) and a new RestartPolicy.
import type { HostConfig, Resources, RestartPolicy } from '../../api/container-types';
import { InvalidParameterError } from '../../api/errors';
import { ociBlockIO } from '../../runtime/oci-spec/blkio-resources';
import { ociCpu } from '../../runtime/oci-spec/cpu-resources';
import { ociMemory } from '../../runtime/oci-spec/memory-resources';
import type { OciResources, OciSpec } from '../../runtime/oci-spec/oci-types';
import { ociPids } from '../../runtime/oci-spec/pids-resources';
import { isNoRestart, validateRestartPolicy } from '../../runtime/oci-spec/restart-policy';
import { validateResourceUpdate } from '../../runtime/oci-spec/validate-resources';
import type { Container } from './container';
import { isRunning } from './container-state';
import { type EngineContext, saveRecord } from './engine-context';

function taskResources(hostConfig: HostConfig): Partial<OciResources> {
  const r: Partial<OciResources> = {};
  const memory = ociMemory(hostConfig);
  const cpu = ociCpu(hostConfig);
  const pids = ociPids(hostConfig);
  const blockIO = ociBlockIO(hostConfig);
  if (memory) r.memory = memory;
  if (cpu) r.cpu = cpu;
  if (pids) r.pids = pids;
  if (blockIO) r.blockIO = blockIO;
  return r;
}

export async function updateResources(
  ctx: EngineContext,
  container: Container,
  body: Resources & { RestartPolicy?: RestartPolicy | null },
): Promise<string[]> {
  const record = container.record;
  const { resources, warnings, changed } = validateResourceUpdate(record.HostConfig, body, ctx.host);
  if (body.RestartPolicy) {
    validateRestartPolicy(body.RestartPolicy);
    if (record.HostConfig.AutoRemove && !isNoRestart(body.RestartPolicy)) {
      throw new InvalidParameterError(
        'Restart policy cannot be updated because AutoRemove is enabled for the container',
      );
    }
    resources.RestartPolicy = body.RestartPolicy;
  }
  const oci = taskResources(resources);
  // A container never started has no spec in containerd yet: its first start builds it from the record.
  if (changed && container.runtimeMade) {
    if (isRunning(record.State)) await ctx.client.tasks.update(container.id, oci);
    const stored = await ctx.client.containers.get(container.id);
    const spec = stored.spec as OciSpec;
    spec.linux.resources = { ...spec.linux.resources, ...oci };
    await ctx.client.containers.update(container.id, { spec });
  }
  record.HostConfig = resources;
  await saveRecord(ctx, container);
  return warnings;
}
