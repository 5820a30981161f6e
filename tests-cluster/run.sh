#!/usr/bin/env bash
# `make test-cluster`: Gloss's shards on a real Slurm cluster of one node (tests-cluster/cluster.sh
# starts munged, slurmctld and slurmd, and stops them whatever happens). Over a collection of 40
# pages (fixtures and generated folios):
#   1. one run of `gloss annotate` over it all, the reference;
#   2. `gloss annotate --shard auto` as an `sbatch --array=0-3` job, and `gloss merge` submitted
#      behind it with `--dependency=afterok`;
#   3. one array task killed part-way (`scancel --signal=KILL`) once it finished a page, and
#      requeued (`scontrol requeue`) while the test holds its folder's lock, as an earlier
#      attempt still running would: the requeued task waits (`--wait`), a run without `--wait`
#      fails naming the holder, and a second attempt of the same index (`sbatch --array=K`,
#      `--shard-count 4`) queued beside it overlaps it;
#   4. the merged batch equals the single run page by page and row by row in the database, the
#      pages the killed attempt finished were not read again, and no folder holds a duplicate or
#      half-written page.
# Needs Debian's slurm-wlm and munge (make setup) and root (the daemons run as root).
#   GLOSS=path/to/gloss tests-cluster/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
gloss=${GLOSS:-$(swift build -c release --show-bin-path)/gloss}
gloss=$(realpath "$gloss")
[ -x "$gloss" ] || { echo "test-cluster: no gloss at $gloss: build it first"; exit 1; }
CLUSTER=$root/.build/cluster
. tests-cluster/cluster.sh
finish() {
    status=$?
    cluster_stop
    if [ "$status" != 0 ]; then
        echo "test-cluster: FAILED (the jobs' output and the daemons' logs follow)"
        for f in "$CLUSTER"/work/logs/*; do [ -f "$f" ] && { echo "----- $f"; tail -n 20 "$f"; }; done
        cluster_logs
    fi
    exit "$status"
}
trap finish EXIT
began=$(date +%s.%N)
elapsed() { awk -v a="$began" -v b="$(date +%s.%N)" 'BEGIN { printf "%5.1fs", b - a }'; }
say() { echo "test-cluster: [$(elapsed)] $*"; }
fail() { echo "test-cluster: [$(elapsed)] $*"; exit 1; }
check() { /usr/bin/python3 "$root/tests-cluster/check.py" "$@"; }
state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
reason() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*Reason=\([^ ]*\).*/\1/p' | head -n 1; }
# Waits up to $2 seconds for job $1 to reach one of the states $3 (a regular expression).
wait_state() {
    local deadline=$(( $(date +%s) + $2 ))
    until state "$1" | grep -Eqx "$3"; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "job $1 is $(state "$1") ($(reason "$1")) after $2 s, not $3"
        sleep 0.2
    done
}

cluster_start || exit 1
say "cluster up: $(sinfo -h -N -o '%N %c CPUs %T')"

work=$CLUSTER/work
collection=$work/collection out=$work/out logs=$work/logs
mkdir -p "$collection" "$out" "$logs"
for folder in text formats scans faces odd; do cp -r "fixtures/$folder" "$collection/"; done
find "$collection" -name '*.json' -delete   # ground truth, not pages
/usr/bin/python3 tests-cluster/make-pages.py "$collection/folios" 15
# txt gives each input its document (documents/NAME.txt), which the merge must carry as one run names it.
options=(--text fast --format html,json,txt)

"$gloss" annotate "$collection" -o "$out/single" --jobs 2 --quiet "${options[@]}"
pages=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pages"]))' "$out/single/gloss.json")
say "single run: $pages pages of $(find "$collection" -type f | wc -l) files"

# The task to kill: of tasks 0 and 1, which start first on the two CPUs, the one with more files.
read -r _ size0 < <(check shards "$collection" 4 | sed -n 1p)
read -r _ size1 < <(check shards "$collection" 4 | sed -n 2p)
victim=0 size=$size0
[ "$size1" -gt "$size0" ] && victim=1 size=$size1
[ "$size" -ge 3 ] || fail "shards 0 and 1 hold $size0 and $size1 files: too few to kill one part-way"

cat >"$work/annotate.sbatch" <<SCRIPT
#!/bin/sh
#SBATCH --job-name=gloss-annotate
#SBATCH --cpus-per-task=1
echo "attempt \${SLURM_RESTART_COUNT:-0} of task \$SLURM_ARRAY_TASK_ID (job \$SLURM_JOB_ID), \$(date +%T)"
exec "$gloss" annotate "$collection" -o "$out/shard-\$SLURM_ARRAY_TASK_ID" --shard auto --jobs 1 --wait ${options[*]}
SCRIPT
array=$(sbatch --parsable --array=0-3 --open-mode=append --output="$logs/task-%a.out" "$work/annotate.sbatch")
merge=$(sbatch --parsable --job-name=gloss-merge --dependency=afterok:"$array" --output="$logs/merge.out" \
    --wrap "'$gloss' merge '$out'/shard-0 '$out'/shard-1 '$out'/shard-2 '$out'/shard-3 -o '$out/merged' --wait --quiet")
say "submitted array $array (0-3) and merge $merge (afterok:$array); task $victim, of $size files, is to be killed"

task=${array}_$victim shard=$out/shard-$victim
wait_state "$task" 120 RUNNING
deadline=$(( $(date +%s) + 60 ))
until [ -s "$shard/gloss.journal" ]; do
    [ "$(state "$task")" = RUNNING ] || fail "task $task is $(state "$task") before it finished a page"
    [ "$(date +%s)" -lt "$deadline" ] || fail "task $task finished no page in 60 s"
    sleep 0.1
done
# --batch sends the signal itself to the task's process (gloss, which the script execs):
# without it Slurm takes KILL as a cancel, and ends the task with SIGTERM first, which Gloss
# answers by stopping cleanly.
scancel --batch --signal=KILL "$task"
wait_state "$task" 30 'CANCELLED|FAILED'
finished=$(check snapshot "$shard" "$work/before-kill.json")
say "task $task killed ($(state "$task")) with $finished of its $size files finished"
[ "$finished" -lt "$size" ] || fail "task $task had finished all its pages before the kill: the kill came too late to test"

grep -q "stopping; finished pages are kept" "$logs/task-$victim.out" && fail "task $task was stopped, not killed"

# As an earlier attempt still running would, the test holds the shard folder's lock (on a
# descriptor of its own, which no child outlives it with).
exec {lock}<>"$shard/gloss.lock"
flock --exclusive --nonblock "$lock" || fail "the killed task still holds $shard/gloss.lock"
if "$gloss" annotate "$collection" -o "$shard" --shard "$victim/4" --jobs 1 --quiet "${options[@]}" 2>"$work/no-wait.err"; then
    fail "a run into $shard without --wait went ahead while another held its lock"
fi
grep -q "is writing this folder; let it finish, or pass --wait" "$work/no-wait.err" \
    || fail "a run without --wait did not say why it stopped: $(cat "$work/no-wait.err")"
say "a run without --wait while the folder is held stops: $(cat "$work/no-wait.err")"

scontrol requeue "$task"
# A requeued job is held back (its BeginTime) for about two minutes, the lifetime of the killed
# attempt's credential; there is no earlier attempt to wait for here, so start it now.
scontrol update JobId="$task" StartTime=now
# A second attempt of the same index, queued beside the requeued one: both wait for the lock.
# It is submitted as tasks run again are, an array of that index alone (--array=$victim): with
# --shard-count, its task id is its shard.
sed 's/--shard auto/--shard auto --shard-count 4/' "$work/annotate.sbatch" >"$work/again.sbatch"
extra=$(sbatch --parsable --job-name=gloss-again --array="$victim" --output="$logs/again.out" "$work/again.sbatch")
extra=${extra}_$victim
wait_state "$task" 120 RUNNING
wait_state "$extra" 120 RUNNING
sleep 2
[ "$(state "$task")" = RUNNING ] || fail "the requeued task did not wait for the lock: it is $(state "$task")"
now=$(check snapshot "$shard" /dev/null)
[ "$now" = "$finished" ] || fail "a page was written into $shard while another held its lock"
say "the requeued task $task and a second attempt $extra both wait while the lock is held"
exec {lock}>&-

# The killed task made the merge's afterok dependency fail, and Slurm (22.05) does not test a
# failed dependency again when the task is requeued: the merge stays pending, never running
# over a shard that is not finished. It is armed again on the tasks themselves (the array's own
# record keeps the killed attempt's failure) and on the second attempt.
sleep 1
[ "$(state "$merge")" = PENDING ] || fail "the merge is $(state "$merge") while a shard is being read again"
say "the merge waits ($(reason "$merge")); its dependency is armed again on the tasks"
scontrol update JobId="$merge" Dependency="afterok:${array}_0:${array}_1:${array}_2:${array}_3:$extra"
wait_state "$merge" 150 'COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY'
[ "$(state "$merge")" = COMPLETED ] || fail "the merge ended $(state "$merge")"
for index in 0 1 2 3; do
    [ "$(state "${array}_$index")" = COMPLETED ] || fail "task ${array}_$index ended $(state "${array}_$index")"
done
[ "$(state "$extra")" = COMPLETED ] || fail "the second attempt ended $(state "$extra")"
say "all tasks and the merge completed"

# The killed task's pages were read once: those finished before the kill kept their files and
# timings, and the attempts after it read the rest between them, each page once.
check resumed "$work/before-kill.json" "$shard" "$out/merged"
read_after=$(cat "$logs/task-$victim.out" "$logs/again.out" | sed -n 's/^gloss: done in [^:]*: \([0-9]*\) pages\{0,1\} read.*/\1/p' \
    | awk '{ n += $1 } END { print n + 0 }')
shard_pages=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pages"]))' "$shard/gloss.json")
[ $((finished + read_after)) = "$shard_pages" ] \
    || fail "shard $victim has $shard_pages pages, but $finished were read before the kill and $read_after after it"
grep -q "skipped (finished in an earlier run)" "$logs/task-$victim.out" "$logs/again.out" \
    || fail "no attempt after the kill skipped the pages finished before it"
say "shard $victim: $finished pages read before the kill, $read_after after it, $shard_pages in all"

# The shards hold the files the documented rule gives them, and the merge what one run holds.
for index in 0 1 2 3; do
    diff <(check sources "$collection" 4 "$index") \
        <(/usr/bin/python3 -c 'import json,sys; print("\n".join(sorted({p["source"] for p in json.load(open(sys.argv[1]))["pages"]})))' \
          "$out/shard-$index/gloss.json") >/dev/null \
        || fail "shard $index does not hold the files whose path hashes to it"
done
check clean "$out/shard-0" "$out/shard-1" "$out/shard-2" "$out/shard-3" "$out/merged"
same=$(check same "$out/single" "$out/merged") || fail "$same"
say "merged equals the single run: $same"
say "passed"
