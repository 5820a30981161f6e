#!/bin/sh
# The test suite under the thread and the address sanitizer, then a leak check of Gloss's own C
# ownership (`make test-sanitize`). Prints a summary with the wall time of every step.
#
#   sanitize/run.sh [thread] [address] [leaks]     (default: all three)
#
# Every build has a scratch path of its own (never the package's .build): SAN_SCRATCH/san-thread
# and SAN_SCRATCH/san-address, SAN_SCRATCH defaulting to /tmp. Sanitizer reports of every
# process (the test runner and each `gloss` it starts) go to files under SAN_LOGS and are
# printed at the end; any report fails the run.
#
# Release builds, with -enable-testing for the suite's @testable imports: the face detector's
# tests take minutes unoptimised, and far longer under a sanitizer.
#
# `leaks` runs LeakCheck (sanitize/LeakCheck) and the `gloss` commands over the fixtures from
# the address build with LeakSanitizer on; the suite itself runs with it off, because the
# XCTest and Swift Testing runtimes keep memory they never free.

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SAN=$ROOT/sanitize
SWIFT=${SWIFT:-swift}
SCRATCH=${SAN_SCRATCH:-/tmp}
LOGS=${SAN_LOGS:-$SCRATCH/san-logs}
CONFIG="-c release -Xswiftc -enable-testing"
PASSES=${*:-thread address leaks}
SUMMARY=""
FAILED=0

cd "$ROOT" || exit 2

now() { date +%s; }

# step NAME COMMAND...: runs the command, records its wall time and status for the summary.
step() {
    name=$1; shift
    echo "==> $name: $*" >&2
    start=$(now)
    "$@"
    status=$?
    took=$(( $(now) - start ))
    if [ $status -eq 0 ]; then result=ok; else result="FAILED (exit $status)"; FAILED=1; fi
    SUMMARY="$SUMMARY$(printf '%-34s %6ss  %s' "$name" "$took" "$result")
"
    return $status
}

# reports KIND: prints what the sanitizers wrote under LOGS/KIND; fails if any of it is a report
# (a file may hold only the list of suppressions used).
reports() {
    found=0
    for file in $(find "$LOGS/$1" -type f 2>/dev/null | sort); do
        echo "---- $file" >&2
        cat "$file" >&2
        # A PDF page's renderer (gloss-render) runs under an address-space cap, and the hostile
        # PDFs reach it on purpose: the sanitizer's allocator then says "out of memory" as the
        # process dies, which is the cap working, not a finding. Any other report fails the run.
        if grep -e "^SUMMARY: " -e "ERROR: " "$file" | grep -q -v -e "out of memory" -e "Failed to mmap"; then found=1; fi
    done
    return $found
}

# exits CODE COMMAND...: succeeds when the command exits with CODE (a batch with broken inputs
# exits 1, a query FTS5 cannot read 2); LeakSanitizer's own exit status is 23.
exits() {
    want=$1; shift
    "$@"
    [ $? -eq "$want" ]
}

build() { # build SANITIZER
    "$SWIFT" build $CONFIG --build-tests --sanitize="$1" --scratch-path "$SCRATCH/san-$1"
}

# Suites that assert wall-clock bounds (connect and total timeouts, a page read within its time)
# with timers on Swift's cooperative pool, two threads here. Under a sanitizer the CPU-bound
# tests of the other suites, run in parallel, hold both threads for minutes and those bounds fail;
# alone they pass in seconds. So they run apart, after the rest, one test at a time (two of them
# at once have pushed a 5 s fetch past its bound); `make test` splits them alike.
TIMED=$(cat "$ROOT/Tests/timed-suites")

# What the thread pass leaves out (sanitize/thread-skip: suites that compute on one thread, and
# why): one pattern of its lines joined, comments and blank lines dropped.
THREAD_SKIP=$(grep -v -e '^#' -e '^$' "$SAN/thread-skip" | paste -sd'|' -)

suite() { # suite SANITIZER --skip|--filter; the timed suites run one test at a time
    serial=""
    [ "$2" = --filter ] && serial=--no-parallel
    left_out=""
    [ "$1" = thread ] && left_out="--skip $THREAD_SKIP"
    # shellcheck disable=SC2086 # left_out is two words or none; the pattern holds no space
    "$SWIFT" test $CONFIG --skip-build --sanitize="$1" --scratch-path "$SCRATCH/san-$1" $serial "$2" "$TIMED" $left_out
}

for pass in $PASSES; do
    case $pass in
    thread)
        rm -rf "$LOGS/thread"; mkdir -p "$LOGS/thread"
        step "thread: build" build thread || continue
        export TSAN_OPTIONS="suppressions=$SAN/tsan.supp halt_on_error=0 second_deadlock_stack=1 log_path=$LOGS/thread/tsan"
        step "thread: suite" suite thread --skip
        step "thread: timed suites" suite thread --filter
        unset TSAN_OPTIONS
        step "thread: reports" reports thread
        ;;
    address)
        rm -rf "$LOGS/address"; mkdir -p "$LOGS/address"
        step "address: build" build address || continue
        export ASAN_OPTIONS="detect_leaks=0 detect_stack_use_after_return=1 check_initialization_order=1 log_path=$LOGS/address/asan"
        step "address: suite (leaks off)" suite address --skip
        step "address: timed suites" suite address --filter
        unset ASAN_OPTIONS
        step "address: reports" reports address
        ;;
    leaks)
        rm -rf "$LOGS/leaks"; mkdir -p "$LOGS/leaks"
        BIN=$("$SWIFT" build $CONFIG --sanitize=address --scratch-path "$SCRATCH/san-address" --show-bin-path)
        if [ ! -x "$BIN/LeakCheck" ] || [ ! -x "$BIN/gloss" ]; then
            step "leaks: build" build address || continue
        fi
        if [ ! -x "$BIN/LeakCheck" ]; then
            echo "sanitize/run.sh: no LeakCheck in $BIN: Package.swift needs its executableTarget (path sanitize/LeakCheck)" >&2
            step "leaks: LeakCheck" false
            continue
        fi
        OUT=$(mktemp -d "${TMPDIR:-/tmp}/gloss-leaks-XXXXXX")
        # The fast unwinder stops at the first frame of a C library without frame pointers
        # (a leaked PIX shows as pixCreateHeader in liblept), which names the handle but not the
        # Gloss frame that dropped it. SAN_FULL_STACKS=1 unwinds fully: the Gloss frames, and a
        # pass four times slower.
        export ASAN_OPTIONS="detect_leaks=1 ${SAN_FULL_STACKS:+fast_unwind_on_malloc=0 }log_path=$LOGS/leaks/asan"
        export LSAN_OPTIONS="suppressions=$SAN/lsan.supp print_suppressions=1"
        step "leaks: LeakCheck" "$BIN/LeakCheck" "$ROOT/fixtures"
        # The command line as a user runs it: every format, broken files, all outputs, resume,
        # search, shards and merge, one page's OCR and faces.
        step "leaks: gloss annotate" exits 1 "$BIN/gloss" annotate fixtures/text fixtures/scans fixtures/faces fixtures/formats \
            fixtures/bad --format html,json,hocr,alto,tsv,txt --quiet -o "$OUT/all"
        step "leaks: gloss annotate (resume)" exits 1 "$BIN/gloss" annotate fixtures/text fixtures/scans fixtures/faces \
            fixtures/formats fixtures/bad --format html,json,hocr,alto,tsv,txt --quiet -o "$OUT/all"
        step "leaks: gloss search" sh -c '"$1" search "$2" "the OR harbour" --json >/dev/null' - "$BIN/gloss" "$OUT/all"
        step "leaks: gloss search (bad query)" exits 2 "$BIN/gloss" search "$OUT/all" '(harbour OR'
        step "leaks: gloss shards + merge" sh -c '
            "$1" annotate fixtures/text --shard 0/2 --no-faces --quiet -o "$2/s0" &&
            "$1" annotate fixtures/text --shard 1/2 --no-faces --quiet -o "$2/s1" &&
            "$1" merge "$2/s0" "$2/s1" -o "$2/merged"' - "$BIN/gloss" "$OUT"
        step "leaks: gloss ocr" sh -c '"$1" ocr fixtures/text/two-pages.tif --page 1 >/dev/null' - "$BIN/gloss"
        step "leaks: gloss faces" sh -c '"$1" faces fixtures/faces/astronaut.png >/dev/null' - "$BIN/gloss"
        unset ASAN_OPTIONS LSAN_OPTIONS
        rm -rf "$OUT"
        step "leaks: reports" reports leaks
        ;;
    *)
        echo "usage: sanitize/run.sh [thread] [address] [leaks]" >&2
        exit 2
        ;;
    esac
done

echo
echo "Sanitizer summary (logs in $LOGS):"
printf '%s' "$SUMMARY"
exit $FAILED
