#!/usr/bin/env bash
# `make test-image`: the Containerfile's runtime filesystem, built without a container engine or
# a registry: mmdebstrap makes Debian 12 (variant apt, documentation left out as in
# debian:12-slim) holding container/runtime-packages into .build/image-root, container/install.sh
# adds the gloss binary and its Swift runtime, and then, inside it with chroot (so no file
# outside it can be reached):
#   - ldd finds every library the binary links, all inside;
#   - gloss annotates the fixtures (a two-page scanned PDF among them, drawn by gloss-render
#     beside it): the text read (tessdata inside), faces found with the
#     built-in YuNet and with OpenCV's cascades (opencv-data inside), a searchable index;
#   - no file of the root is newer than the build but the batch's own (nothing written elsewhere).
# Needs root (chroot, mount) and Debian's mirror (as make setup does).
#   GLOSS=path/to/gloss tests-image/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
gloss=$(realpath "${GLOSS:-$(swift build -c release --show-bin-path)/gloss}")
root=$PWD/.build/image-root
began=$(date +%s.%N)
say() { awk -v a="$began" -v b="$(date +%s.%N)" -v m="$*" 'BEGIN { printf "test-image: [%5.1fs] %s\n", b - a, m }'; }
fail() { say "FAILED: $*"; exit 1; }
cleanup() { mountpoint -q "$root/proc" && umount "$root/proc"; true; }
trap cleanup EXIT

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
rm -rf "$root"
mmdebstrap --quiet --variant=apt --include="$(grep -v '^#' container/runtime-packages | paste -sd, -)" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    bookworm "$root" "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
say "Debian 12 root with the runtime packages: $(du -sh "$root" | cut -f1)"
container/install.sh "$gloss" "$root"
say "gloss installed: $(du -sh "$root" | cut -f1) in all, Swift runtime $(du -sh "$root/usr/local/lib/swift" | cut -f1)"

[ -x "$root/usr/local/bin/gloss-render" ] || fail "no gloss-render beside gloss (PDF pages are drawn by it)"
missing=$(chroot "$root" ldd /usr/local/bin/gloss /usr/local/bin/gloss-render | grep 'not found' || true)
[ -z "$missing" ] || fail "libraries the binary needs are not in the root: $missing"
outside=$(chroot "$root" ldd /usr/local/bin/gloss | awk '$2 == "=>" { print $3 }' | grep -v -E '^/(lib|usr/lib|usr/local/lib/swift)/' || true)
[ -z "$outside" ] || fail "libraries resolve outside the root's library folders: $outside"
[ -f "$root/usr/share/tesseract-ocr/5/tessdata/eng.traineddata" ] || fail "no English tessdata in the root"

mkdir -p "$root/data/in"
cp fixtures/text/sans.png fixtures/text/two-pages.tif fixtures/faces/astronaut.png fixtures/pdf/scanned.pdf "$root/data/in/"
touch "$root/.build-stamp"
mount -t proc proc "$root/proc"
chroot "$root" /usr/local/bin/gloss --version
chroot "$root" /usr/local/bin/gloss annotate /data/in -o /data/out --text fast --quiet || fail "gloss annotate failed inside the root"
chroot "$root" /usr/local/bin/gloss faces /data/in/astronaut.png --faces cascade >"$root/data/cascade.json" \
    || fail "gloss faces --faces cascade failed inside the root"
umount "$root/proc"
/usr/bin/python3 - "$root/data" <<'PY' || fail "the batch made inside the root is not right"
import json, sqlite3, sys
data = sys.argv[1]
pages = json.load(open(data + "/out/gloss.json"))["pages"]
assert len(pages) == 6 and all(p["status"] == "ok" for p in pages), [(p["id"], p["status"], p.get("error")) for p in pages]
words = {p["id"].split("-")[0]: p["words"] for p in pages}
faces = {p["id"].split("-")[0]: p["faces"] for p in pages}
assert words["sans"] >= 20 and faces["astronaut"] == 1, (words, faces)
database = sqlite3.connect(data + "/out/gloss.sqlite")
assert database.execute("SELECT count(*) FROM page_text WHERE page_text MATCH 'staff'").fetchone()[0] == 1
cascade = json.load(open(data + "/cascade.json"))
assert len(cascade["faces"]) >= 1, cascade
print("test-image: %d pages read inside the root: %d words, %d faces (YuNet), %d by the cascade"
      % (len(pages), sum(words.values()), sum(faces.values()), len(cascade["faces"])))
PY
written=$(cd "$root" && find . -xdev -newer .build-stamp ! -path './data/*' ! -path './proc/*' ! -path './data' | head -n 5)
[ -z "$written" ] || fail "gloss wrote outside its batch: $written"
say "passed"
