// A submit's list of what is wrong with a form, brought into view (it sits below a long form),
// and the foot of a form dialog: those problems, the engine's refusal, Cancel and the submit.
import { useEffect, useRef, type ReactNode } from 'react';
import { ErrorMessage } from './error-message';

export function FormProblems({ problems }: { problems: string[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Braces: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
    void ref.current?.scrollIntoView({ block: 'nearest' });
  }, [problems]);
  if (!problems.length) return null;
  return (
    <div className="error" role="alert" ref={ref}>
      <strong>Check the form:</strong>
      <ul>
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

export function FormFooter({
  problems,
  error,
  pending,
  onCancel,
  children,
  submit = 'Create',
}: {
  problems: string[];
  error: unknown;
  pending: boolean;
  onCancel: () => void;
  /** Shown between the problems and the engine's refusal (a pull's progress). */
  children?: ReactNode;
  submit?: ReactNode;
}) {
  return (
    <>
      <FormProblems problems={problems} />
      {children}
      <ErrorMessage error={error} context="The engine refused" />
      <footer>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" disabled={pending}>
          {submit}
        </button>
      </footer>
    </>
  );
}
