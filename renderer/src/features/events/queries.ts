// The timeline is filled by the one events subscription (app/use-engine-events); this reads it.
import { useQuery } from '@tanstack/react-query';
import { eventsKey, type Timeline } from '../../app/use-engine-events';

export function useTimeline() {
  return useQuery<Timeline>({
    queryKey: eventsKey,
    queryFn: () => ({ events: [], seen: 0 }),
    staleTime: Infinity,
  });
}
