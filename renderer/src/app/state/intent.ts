// An action asked for from outside a screen (the command palette) that the screen itself carries
// out, since the screen owns the dialog or the field involved: go there, and the screen's handler
// runs once, when the screen has what it needs (`ready`).
import { useEffect } from 'react';
import { create } from 'zustand';
import { navigate, type Section } from './router';

interface Intent {
  name: string;
  arg?: string;
}

const useIntent = create<{ intent?: Intent }>(() => ({}));

/** `at`: the route under the section the screen needs (a manifest's repository and tag). */
export function requestIntent(section: Section, name: string, arg?: string, at: string[] = []): void {
  useIntent.setState({ intent: { name, arg } });
  navigate(section, ...at);
}

export function useIntentHandler(name: string, ready: boolean, run: (arg?: string) => void): void {
  const intent = useIntent((s) => s.intent);
  useEffect(() => {
    if (intent?.name !== name || !ready) return;
    useIntent.setState({ intent: undefined });
    run(intent.arg);
  }, [intent, name, ready, run]);
}
