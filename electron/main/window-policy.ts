// What the app's window may do, decided apart from Electron so that it can be tested without it:
// where it may navigate, which links go to the user's browser, which page permissions it gets.

/** Navigation stays on the gateway's own origin (a prefix test would let :80 through as :8080). */
export function staysInApp(url: string, gatewayUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(gatewayUrl).origin;
  } catch {
    return false;
  }
}

/** Links the window refuses to open itself go to the user's browser when they are web links. */
export function opensInBrowser(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The app needs no camera, microphone, notifications or other powers a page may ask for; only
 * writing to the clipboard (the terminal's and the registry's Copy).
 */
export function permissionAllowed(permission: string): boolean {
  return permission === 'clipboard-sanitized-write';
}
