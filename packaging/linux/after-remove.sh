#!/bin/sh
# The deb's postrm (electron-builder's deb.afterRemove, a template as after-install.sh).
set -e

# What electron-builder's default after-remove does, which this script replaces.
rm -f '/usr/bin/${executable}'

# On removal (not on upgrade) the system engine stops; its data in /var/lib/svc and the svc
# group stay, as Debian leaves a removed package's data and groups.
if [ "$1" = remove ] || [ "$1" = purge ]; then
  if [ -d /run/systemd/system ]; then
    systemctl stop svcd.service || true
    systemctl disable svcd.service || true
    systemctl daemon-reload || true
  fi
fi
