#!/usr/bin/env bash
# `gloss serve` under load: IIIF Content Search on the index bench's 10,000-page batch
# (IndexBench's synthetic pages of 300 words), 50 clients at once over loopback for 20 s with
# wrk, each request a search of a mix of common, frequent and rare words, two-word queries and
# prefixes; then autocomplete the same way. Prints wrk's latency distribution; the target is a
# p99 under 100 ms (docs/serve.md).
#   bench/serve.sh [--pages N] [--clients N] [--seconds N] [--threads N] [--batch DIR] [--gloss BIN]
# --batch makes the batch in DIR (emptied first) or reuses the one DIR holds, so that runs
# compared side by side search the same pages; --gloss serves with another build (a baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
pages=10000 clients=50 seconds=20 threads=4 batch= gloss=
while [ $# -gt 0 ]; do
    case "$1" in
        --pages) pages=$2; shift 2 ;;
        --clients) clients=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --batch) batch=$2; shift 2 ;;
        --gloss) gloss=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
command -v wrk >/dev/null || { echo "wrk is missing: make setup installs it" >&2; exit 1; }
swift build -c release --product gloss >/dev/null
swift build -c release --product IndexBench >/dev/null
bin="$(swift build -c release --show-bin-path)"
work=$(mktemp -d /tmp/gloss-serve-bench.XXXXXX)
server=
cleanup() {
    [ -n "$server" ] && kill -INT "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$batch" ]; then
    batch="$work/batch"
fi
if [ ! -f "$batch/gloss.sqlite" ]; then
    "$bin/IndexBench" --pages "$pages" --folder "$batch" --keep | head -1
fi

"${gloss:-$bin/gloss}" serve "$batch" --read-only --port 0 --threads "$threads" 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q "serving" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)
[ -n "$url" ] || { cat "$work/serve.log" >&2; exit 1; }

# The queries: terms the index holds, by how many pages hold them, from its own autocomplete.
python3 - "$url" "$work/queries.lua" <<'PY'
import json, sys, urllib.parse, urllib.request
url, out = sys.argv[1], sys.argv[2]
terms = []
for letter in "abcdefghijklmnopqrstuvwxyz":
    with urllib.request.urlopen(url + "/iiif/autocomplete?q=" + letter) as response:
        terms += json.load(response)["items"]
terms.sort(key=lambda t: -t["total"])
common, frequent, rare = terms[:5], terms[len(terms) // 4:len(terms) // 4 + 5], terms[-5:]
queries = [t["value"] for t in common + frequent + rare]
queries += ["%s %s" % (a["value"], b["value"]) for a, b in zip(frequent, common)]
queries += [t["value"][:3] + "*" for t in frequent]
searches = ["/iiif/search?q=" + urllib.parse.quote(q) for q in queries]
completions = ["/iiif/autocomplete?q=" + t["value"][:2] for t in common + frequent]
with open(out, "w") as lua:
    lua.write("searches = {%s}\n" % ", ".join('"%s"' % p for p in searches))
    lua.write("completions = {%s}\n" % ", ".join('"%s"' % p for p in completions))
    lua.write("""
paths = os.getenv("GLOSS_BENCH_KIND") == "autocomplete" and completions or searches
counter = 0
request = function()
    counter = counter + 1
    return wrk.format("GET", paths[(counter % #paths) + 1])
end
done = function(summary, latency, requests)
    io.write(string.format("requests %d, errors %d (status %d, timeout %d), p50 %.1f ms, p99 %.1f ms, max %.1f ms\\n",
        summary.requests, summary.errors.status + summary.errors.timeout + summary.errors.connect + summary.errors.read,
        summary.errors.status, summary.errors.timeout,
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
""")
print("%d search queries (pages holding a term: %d to %d)" % (len(searches), rare[-1]["total"], common[0]["total"]))
PY

for kind in search autocomplete; do
    echo "== $kind: $clients clients for ${seconds} s, server threads $threads"
    GLOSS_BENCH_KIND=$kind wrk -t2 -c"$clients" -d"${seconds}s" --timeout 10s --latency -s "$work/queries.lua" "$url" \
        | grep -E "Latency|50%|90%|99%|Requests/sec|requests|Non-2xx"
done
