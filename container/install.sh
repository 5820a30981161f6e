#!/bin/sh
# Installs a built gloss into ROOT, a Debian 12 filesystem holding container/runtime-packages:
# the binary in /usr/local/bin, and the Swift runtime libraries it links (those ldd finds outside
# Debian's folders: the toolchain's) in /usr/local/lib/swift, named in ld.so.conf.d. A binary
# built with --static-swift-stdlib links none, and only the binary is copied.
#   container/install.sh GLOSS ROOT
set -eu
gloss=$1 root=$2
install -D -m 755 "$gloss" "$root/usr/local/bin/gloss"
# gloss-render (which draws PDF pages) is looked for beside gloss; it links what gloss links.
if [ -x "$(dirname "$gloss")/gloss-render" ]; then
    install -m 755 "$(dirname "$gloss")/gloss-render" "$root/usr/local/bin/gloss-render"
fi
mkdir -p "$root/usr/local/lib/swift"
ldd "$gloss" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r library; do
    case $library in
        /lib/*|/usr/lib/x86_64-linux-gnu/*|/usr/lib/aarch64-linux-gnu/*) ;;  # Debian's: from its packages
        *) cp -L "$library" "$root/usr/local/lib/swift/" ;;
    esac
done
echo /usr/local/lib/swift >"$root/etc/ld.so.conf.d/gloss-swift.conf"
chroot "$root" /sbin/ldconfig 2>/dev/null || ldconfig -r "$root"
