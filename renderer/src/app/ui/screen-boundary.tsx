// What a screen that cannot be shown leaves: its reason and a way out, in its place. Without a
// boundary React unmounts the whole window for one screen's error (a chunk that would not load).
import { Component, type ReactNode } from 'react';
import { RotateCw } from 'lucide-react';
import { Button } from './button';
import { ErrorMessage } from './error-message';

interface Props {
  children: ReactNode;
  what: string;
  /** Another value (the route) clears the error: the next screen gets its own chance. */
  resetKey?: string;
}

export class ScreenBoundary extends Component<Props, { error?: unknown }> {
  state: { error?: unknown } = {};

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  componentDidUpdate(prev: Props) {
    if (prev.resetKey !== this.props.resetKey && this.state.error !== undefined)
      this.setState({ error: undefined });
  }

  render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <div className="screen-failed">
        <ErrorMessage error={this.state.error} context={`${this.props.what} could not be shown`} />
        {/* A chunk that failed to load stays failed in this page: a reload loads it anew. */}
        <Button icon={RotateCw} label="Reload the window" onClick={() => location.reload()} />
      </div>
    );
  }
}
