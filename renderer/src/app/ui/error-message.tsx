// Errors are shown, never swallowed: the engine's own message, readable, in place.
import { errorText } from '../../api/gateway';

export function ErrorMessage({ error, context }: { error: unknown; context?: string }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      {context ? <strong>{context}: </strong> : null}
      {errorText(error)}
    </div>
  );
}
