// The one button of the app: an icon from lucide-react, a label, and a variant. With `iconOnly`
// the label becomes the accessible name and the tooltip, so row actions stay small and still
// say what they do to screen readers and keyboard users.
import type { ButtonHTMLAttributes } from 'react';
import type { LucideIcon } from 'lucide-react';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  icon?: LucideIcon;
  label: string;
  variant?: 'default' | 'primary' | 'danger' | 'ghost';
  iconOnly?: boolean;
}

export function Button({
  icon: Icon,
  label,
  variant = 'default',
  iconOnly,
  className,
  ...rest
}: ButtonProps) {
  const classes = ['btn', `btn-${variant}`, iconOnly ? 'btn-icon' : '', className ?? ''].filter(Boolean);
  return (
    <button
      type="button"
      className={classes.join(' ')}
      aria-label={iconOnly ? label : undefined}
      title={iconOnly ? label : rest.title}
      {...rest}
    >
      {Icon ? <Icon size={16} aria-hidden /> : null}
      {iconOnly ? null : <span>{label}</span>}
    </button>
  );
}
