// A row of mutually exclusive choices shown as joined buttons (a radio group): a chart's time
// window, which files of a layer to show.
export interface Choice<T extends string | number> {
  value: T;
  label: string;
}

export function Segmented<T extends string | number>({
  label,
  choices,
  value,
  onChange,
}: {
  /** What is being chosen, for assistive technology. */
  label: string;
  choices: readonly Choice<T>[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div role="radiogroup" aria-label={label} className="segmented">
      {choices.map((c) => (
        <button key={c.value} role="radio" aria-checked={value === c.value} onClick={() => onChange(c.value)}>
          {c.label}
        </button>
      ))}
    </div>
  );
}
