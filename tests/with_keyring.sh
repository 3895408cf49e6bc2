#!/usr/bin/env bash
# Runs a command against a real, unlocked Secret Service: a private D-Bus session with
# gnome-keyring in a temporary HOME (so the user's own keyring is never touched).
# Usage: tests/with_keyring.sh COMMAND [ARGS...]
set -euo pipefail
export HOME="$(mktemp -d)"
export XDG_RUNTIME_DIR="$HOME/run" XDG_DATA_HOME="$HOME/.local/share" XDG_CONFIG_HOME="$HOME/.config"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
trap 'rm -rf "$HOME"' EXIT
exec dbus-run-session -- bash -c '
  echo -n "tokenscope-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  # The daemon registers on the bus shortly after it forks: wait for it (up to 5 s).
  for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
      | grep -q "boolean true" && break
    sleep 0.05
  done
  exec "$@"' keyring "$@"
