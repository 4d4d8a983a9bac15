// The shell as static markup, rendered at build time into index.html (scripts/prerender-shell.mjs):
// the sidebar paints with the stylesheet, before the app's script is parsed; the app replaces it
// when it renders. Hidden where the stored sidebar is collapsed, which this markup is not.
import { renderToStaticMarkup } from 'react-dom/server';
import { SidebarFrame } from './app/shell/sidebar-frame';

export function shellMarkup(): string {
  return renderToStaticMarkup(
    <div className="shell prerendered">
      <SidebarFrame collapsed={false} />
      <main>
        <p className="muted">Loading…</p>
      </main>
    </div>,
  );
}
