#!/usr/bin/env bash
# Installs everything TokenScope needs to build, run and test on Debian 12.
# Usage: sudo packaging/install-deps.sh   (as root, sudo is not needed)
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config clang clang-format \
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libglx-dev \
  libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev libtomlplusplus-dev libsentencepiece-dev nlohmann-json3-dev \
  qt6-qpa-plugins qt6-translations-l10n libqt6svg6 qt6-svg-dev libqt6sql6-sqlite fonts-dejavu-core fonts-droid-fallback \
  qtkeychain-qt6-dev gnome-keyring dbus libsecret-tools qt6-l10n-tools qt6-tools-dev \
  qt6-tools-dev-tools xvfb xauth desktop-file-utils appstream dpkg-dev >/dev/null
echo "TokenScope dependencies are installed."
