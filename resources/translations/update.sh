#!/usr/bin/env bash
# Refreshes tokenscope_zh_CN.ts from the code (new strings appear as unfinished; the
# translations test fails until they are translated). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/../.."
/usr/lib/qt6/bin/lupdate -no-obsolete -locations none -I . ui app inference/remote \
  -ts resources/translations/tokenscope_zh_CN.ts
