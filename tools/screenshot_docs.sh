#!/usr/bin/env bash
# Screenshots of the built documentation in headless Chromium, to look at it as a reader:
# the index, one user-guide page, one API page and one gallery page.
#
#   python -m sphinx -W --keep-going -n -b html docs docs/_build/html   # build first
#   bash tools/screenshot_docs.sh [OUTDIR]                                 # default /tmp/unlabeled-docs-shots
#
# Needs Chromium (Debian: apt-get install chromium). Writes one PNG per page (WINDOW_WIDTH, 1440
# pixels by default, and the first WINDOW_HEIGHT pixels of the page) and prints their paths.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SITE="${SITE:-$ROOT/docs/_build/html}"
OUT="${1:-/tmp/unlabeled-docs-shots}"
WINDOW_HEIGHT="${WINDOW_HEIGHT:-1600}"
BROWSER="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"

if [[ -z "$BROWSER" ]]; then
    echo "screenshot_docs.sh: no Chromium found (apt-get install chromium)" >&2
    exit 1
fi
if [[ ! -f "$SITE/index.html" ]]; then
    echo "screenshot_docs.sh: no built site at $SITE (build it first, see the header)" >&2
    exit 1
fi
mkdir -p "$OUT"

pages=(
    "index.html"
    "user_guide/pu.html"
    "api/generated/unlabeled.PUSVC.html"
    "auto_examples/semi_supervised/plot_clsst_components.html"
    "which_method.html"
    "getting_started.html"
)
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
for page in "${pages[@]}"; do
    if [[ ! -f "$SITE/$page" ]]; then
        echo "screenshot_docs.sh: $page is not in the site" >&2
        exit 1
    fi
    png="$OUT/$(echo "$page" | tr '/' '_' | sed 's/\.html$//').png"
    "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$profile" --window-size="${WINDOW_WIDTH:-1440},$WINDOW_HEIGHT" \
        --virtual-time-budget=3000 --screenshot="$png" "file://$SITE/$page" \
        > /dev/null 2>&1
    echo "$png"
done
