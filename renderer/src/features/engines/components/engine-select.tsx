import { useEngines } from '../../../app/state/engines';
// A choice among the engines the app knows: the sidebar's switcher, and the engine a registry
// dialog pulls into or pushes from.

export function EngineSelect({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const { all } = useEngines();
  return (
    <label>
      Engine{' '}
      <select aria-label="Engine" value={value} onChange={(e) => onChange(e.target.value)}>
        {all.map((e) => (
          <option key={e.id} value={e.id}>
            {e.name}
          </option>
        ))}
      </select>
    </label>
  );
}
