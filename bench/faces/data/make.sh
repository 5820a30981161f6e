#!/bin/sh
# Re-create the images of this folder from their sources (see README.md).
# Needs: Debian apt sources (apt-get download, no root needed for that), PyPI (pip), git,
# and, for the GitHub sources, bare mirrors under $MIRRORS (default /work/.mirror/OWNER+NAME/repo,
# as the workplace's fetch tool makes them). Without the mirrors, pass --skip-git.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${FACEDATA_VENV:-$HERE/../../../.build/facedata-venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "pillow>=10"
exec "$VENV/bin/python" "$HERE/make.py" "$@"
