// Server state of the embedded registry (svc-registry): catalog, tags, manifests.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { registry } from '../../api/registry-client';
import { useService } from '../../app/use-desktop-state';

function useRegistryUp(): boolean {
  return useService('svc-registry')?.status === 'up';
}

export function useCatalog() {
  const up = useRegistryUp();
  return useQuery({
    queryKey: ['registry', { catalog: true }],
    queryFn: () => registry.catalog(),
    enabled: up,
  });
}

export function useTags(repo: string | undefined) {
  return useQuery({ queryKey: ['registry', { repo }], queryFn: () => registry.tags(repo!), enabled: !!repo });
}

export function useManifest(repo: string | undefined, ref: string | undefined) {
  return useQuery({
    queryKey: ['registry', { repo, ref }],
    queryFn: () => registry.manifest(repo!, ref!),
    enabled: !!repo && !!ref,
  });
}

export function useDeleteManifest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { repo: string; digest: string }) => registry.deleteManifest(v.repo, v.digest),
    onSettled: () => qc.invalidateQueries({ queryKey: ['registry'] }),
  });
}
