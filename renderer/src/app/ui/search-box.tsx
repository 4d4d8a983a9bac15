// The search field of a list screen; "/" focuses it (app.tsx), as the palette's "Search this
// screen" does.

/** Focuses the screen's search box; false when the screen has none. */
export function focusSearch(): boolean {
  const box = document.querySelector<HTMLInputElement>('main input[type=search]');
  box?.focus();
  return !!box;
}

export function SearchBox({
  label,
  placeholder,
  value,
  onChange,
}: {
  label: string;
  placeholder: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <input
      type="search"
      placeholder={`${placeholder} ( / )`}
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
