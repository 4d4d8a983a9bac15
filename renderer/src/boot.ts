// Run before the first paint (a classic script in index.html's head): the stored theme and
// sidebar state on <html>, so the prerendered shell paints as the app will show it.
import { applyTheme, useTheme } from './app/state/theme';
import { markSidebar, useSidebar } from './app/shell/sidebar-store';

applyTheme(useTheme.getState().theme);
markSidebar(useSidebar.getState().collapsed);
