#!/usr/bin/env bash
# Build the engine with AddressSanitizer + UBSan and run the test suite against that build.
# Usage: bash tools/sanitize.sh [pytest args]   (default: the fast tests, without the UCI oracle)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python -m pip install -q nanobind >/dev/null
cmake -S . -B "$tmp/build" -G Ninja -DUNLABELED_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  -DPython_EXECUTABLE="$(command -v python)" >/dev/null
cmake --build "$tmp/build" >/dev/null
mkdir -p "$tmp/pkg"
cp -r src/unlabeled "$tmp/pkg/"
cp "$tmp"/build/_core*.so "$tmp/pkg/unlabeled/_engine/"
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if [ $# -eq 0 ]; then set -- -q -x -k "not uci"; fi
PYTHONPATH="$tmp/pkg" python -c "import unlabeled._engine._core as m; print('engine under test:', m.__file__)"
PYTHONPATH="$tmp/pkg" python -m pytest -p no:cacheprovider "$@"
