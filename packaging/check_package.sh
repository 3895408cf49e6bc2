#!/usr/bin/env bash
# Builds the Debian packages of a configured build folder, unpacks them into a temporary
# root (as dpkg would install them, without installing) and runs what a user would from
# that tree: tokenscope-cli --version, the engine's golden output (aidreams260K's greedy
# ids), the CUDA plugin found where the package puts it, the GUI answering on its demo
# model and saving a screenshot; validates the desktop entry and the AppStream metainfo.
# Usage: packaging/check_package.sh [build-dir] [shared-dir]
set -euo pipefail
build="$(cd "${1:-build}" && pwd)"
shared="$(cd "${2:-$(dirname "$0")/../../shared}" 2>/dev/null && pwd || echo "")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check_package: $*" >&2; exit 1; }

rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB > "$work/cpack.log") || { cat "$work/cpack.log"; fail "cpack failed"; }
main_deb=$(ls "$build"/tokenscope_*.deb)
echo "packages: $(cd "$build" && ls ./*.deb | tr '\n' ' ')"
echo "Depends: $(dpkg-deb -f "$main_deb" Depends)"
dpkg-deb -f "$main_deb" Depends | grep -q "libqt6widgets6" || fail "Depends lacks the Qt libraries"
tree="$work/root"
for deb in "$build"/*.deb; do dpkg-deb -x "$deb" "$tree"; done
bin="$tree/usr/bin"

version=$(dpkg-deb -f "$main_deb" Version)
"$bin/tokenscope-cli" --version | grep -qx "tokenscope-cli $version" || fail "--version"
echo "ok: tokenscope-cli --version = $version"

desktop-file-validate "$tree/usr/share/applications/io.github.tokenscope.TokenScope.desktop"
appstreamcli validate --no-net "$tree/usr/share/metainfo/io.github.tokenscope.TokenScope.metainfo.xml" > /dev/null
for size in 48x48 128x128 256x256 scalable; do
  ls "$tree/usr/share/icons/hicolor/$size/apps/io.github.tokenscope.TokenScope."* > /dev/null
done
echo "ok: desktop entry, metainfo and icons"

model="$shared/models/aidreams260K/aidreams260K.gguf"
if [ -n "$shared" ] && [ -f "$model" ]; then
  ids() { tr -d ' \n' | grep -o "\"$1\":\[[^]]*\]" | sed 's/.*\[//; s/\]//'; }
  expected=$(ids generated_ids < "$shared/models/aidreams260K/reference/I_dreamed.json")
  count=$(echo "$expected" | tr ',' '\n' | wc -l)
  out=$("$bin/tokenscope-cli" generate --model "$model" --prompt "I dreamed" \
        --max-tokens "$count" --backend cuda --json 2> "$work/generate.err")
  got=$(echo "$out" | ids token_ids)
  [ "$got" = "$expected" ] || fail "golden ids differ: got $got, expected $expected"
  echo "ok: engine golden output ($count tokens)"
  if [ -f "$tree/usr/lib/tokenscope/libtokenscope_cuda.so" ]; then
    # The plugin is found beside the installed binary (a machine without a GPU says why
    # the CPU ran instead; "not found" would mean a wrong path).
    if grep -q "CUDA plugin libtokenscope_cuda.so not found" "$work/generate.err"; then
      cat "$work/generate.err"
      fail "the installed binary does not find the installed CUDA plugin"
    fi
    echo "ok: CUDA plugin found in /usr/lib/tokenscope ($(echo "$out" | tr -d '\n' | grep -o '"backend": *"[a-z]*"'))"
  fi
else
  echo "skip: engine golden output (the shared fixtures are absent)"
fi

# The GUI from the tree, first start in an empty home: the demo model answers, the
# window is saved.
home="$work/home"
mkdir -p "$home"
(cd "$work" && HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
  TOKENSCOPE_CONFIG_DIR="$home/.config/tokenscope" QT_QPA_PLATFORM=offscreen \
  timeout 120 "$bin/tokenscope" --send "Hello" --screenshot "$work/shot.png" \
  > "$work/gui.log" 2>&1) || { cat "$work/gui.log"; fail "GUI run"; }
[ -s "$work/shot.png" ] || fail "no screenshot"
echo "ok: GUI smoke run ($(stat -c %s "$work/shot.png") bytes of screenshot)"
