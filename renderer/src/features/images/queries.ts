// Server state of images, refreshed by image events.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { ApiError } from '../../api/gateway';
import { useEngineUp } from '../../app/state/use-desktop-state';
import { asOwnSave } from '../../app/state/own-actions';

export function useImage(id: string) {
  const up = useEngineUp();
  return useQuery({ queryKey: ['image', { id }], queryFn: () => engine.imageInspect(id), enabled: up });
}

/** An image's layers never change under its ID: read once (the gateway reads the whole image). */
export function useImageLayerFiles(id: string) {
  return useQuery({
    queryKey: ['image-layers', { id }],
    // Leaving before the answer stops the gateway reading the image.
    queryFn: ({ signal }) => asOwnSave(id, () => engine.imageLayerFiles(id, signal)),
    staleTime: Infinity,
    retry: false,
  });
}

/** Under "containers", so container events refresh it. */
export function useImageContainers(id: string) {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['containers', { ancestor: id }],
    queryFn: () => engine.containersOf(id),
    enabled: up,
  });
}

export function useImageHistory(id: string | undefined) {
  return useQuery({
    queryKey: ['image', { id, history: true }],
    queryFn: () => engine.imageHistory(id!),
    enabled: !!id,
  });
}

/** A 409 on remove means the image is in use or has several names; say which, and what to do. */
export function explainRemoveError(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 409) return undefined;
  if (/container/i.test(err.message)) {
    return 'A container uses this image. Remove that container first, or force the removal (the container keeps running on the untagged image).';
  }
  return 'The image is referenced by more than one name. Remove a specific tag, or force the removal to delete all of them.';
}

export function useImageMutations() {
  const qc = useQueryClient();
  const onSettled = () => qc.invalidateQueries({ queryKey: ['images'] });
  return {
    remove: useMutation({
      mutationFn: (v: { id: string; force: boolean }) => engine.removeImage(v.id, v.force),
      onSettled,
    }),
    tag: useMutation({
      mutationFn: (v: { id: string; repo: string; tag: string }) => engine.tag(v.id, v.repo, v.tag),
      onSettled,
    }),
  };
}
