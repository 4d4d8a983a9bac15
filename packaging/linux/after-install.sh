#!/bin/sh
# The deb's postinst (electron-builder's deb.afterInstall, a template: its macros are the
# brace-dollar names below; the shell's own variables are written without braces).
set -e

# What electron-builder's default after-install does, which this script replaces.
ln -sf '/opt/${sanitizedProductName}/${executable}' '/usr/bin/${executable}'
chmod 4755 '/opt/${sanitizedProductName}/chrome-sandbox' || true
if command -v update-mime-database >/dev/null 2>&1; then update-mime-database /usr/share/mime || true; fi
if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database /usr/share/applications || true; fi

# The system engine's socket group: its members may use the system svcd (svcd.service).
if ! getent group svc >/dev/null; then
  groupadd --system svc
fi

# The unit is installed, not enabled: an administrator opts in with `systemctl enable --now svcd`.
# An upgrade restarts a system engine that runs, onto the new svcd.
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
  systemctl try-restart svcd.service || true
fi
