// The timeline is filled by the one events subscription (app/use-engine-events); this reads it.
export { useTimeline } from '../../app/state/use-engine-events';
