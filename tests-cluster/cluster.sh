# A one-node Slurm cluster on this machine, for tests-cluster/run.sh (sourced, not run): munged,
# slurmctld and slurmd started by cluster_start, with their config, state, spool, logs and munge
# key under $CLUSTER (.build/cluster), and stopped by cluster_stop, which the caller traps on EXIT.
# No cgroups (proctrack/linuxproc, task/none), no accounting database: the daemons run as root
# on loopback, on ports of their own so that no system Slurm is disturbed.

CLUSTER_PORT_CTLD=${CLUSTER_PORT_CTLD:-16817}
CLUSTER_PORT_SLURMD=${CLUSTER_PORT_SLURMD:-16818}

cluster_write_config() {
    rm -rf "$CLUSTER"
    mkdir -p "$CLUSTER/etc" "$CLUSTER/state" "$CLUSTER/spool" "$CLUSTER/log" "$CLUSTER/munge"
    chmod 700 "$CLUSTER/munge"
    # munged checks that no one else can write its key, socket folder or log.
    dd if=/dev/urandom of="$CLUSTER/munge/munge.key" bs=1024 count=1 status=none
    chmod 600 "$CLUSTER/munge/munge.key"
    cat >"$CLUSTER/etc/slurm.conf" <<CONF
ClusterName=gloss-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CLUSTER_PORT_CTLD
SlurmdPort=$CLUSTER_PORT_SLURMD
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$CLUSTER/munge/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobRequeue=1
MinJobAge=600
# A cancelled job's processes get SIGTERM, then SIGKILL this many seconds later.
KillWait=2
SlurmctldPidFile=$CLUSTER/state/slurmctld.pid
SlurmdPidFile=$CLUSTER/state/slurmd.pid
StateSaveLocation=$CLUSTER/state
SlurmdSpoolDir=$CLUSTER/spool
SlurmctldLogFile=$CLUSTER/log/slurmctld.log
SlurmdLogFile=$CLUSTER/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=gloss Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$CLUSTER/etc/slurm.conf"
}

cluster_logs() {
    for log in "$CLUSTER"/log/*.log; do
        [ -f "$log" ] || continue
        echo "----- $log (last 60 lines)"
        tail -n 60 "$log"
    done
}

cluster_start() {
    cluster_write_config
    munged --force --socket="$CLUSTER/munge/munge.socket" --key-file="$CLUSTER/munge/munge.key" \
        --pid-file="$CLUSTER/munge/munged.pid" --log-file="$CLUSTER/log/munged.log" \
        --seed-file="$CLUSTER/munge/munged.seed" || { echo "cluster: munged did not start"; cluster_logs; return 1; }
    slurmctld -f "$SLURM_CONF" || { echo "cluster: slurmctld did not start"; cluster_logs; return 1; }
    slurmd -f "$SLURM_CONF" -N localhost || { echo "cluster: slurmd did not start"; cluster_logs; return 1; }
    local tries=0
    until sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; do
        tries=$((tries + 1))
        if [ "$tries" -ge 60 ]; then
            echo "cluster: the node did not come up within 30 s:"
            sinfo -N 2>&1 || true
            cluster_logs
            return 1
        fi
        sleep 0.5
    done
}

# Stops what cluster_start started: first every job (so that no job's processes outlive the
# cluster), then the daemons, by the pids they wrote, waiting for each to go.
cluster_stop() {
    local name pidfile pid
    if [ -f "$CLUSTER/state/slurmctld.pid" ] && kill -0 "$(cat "$CLUSTER/state/slurmctld.pid")" 2>/dev/null; then
        scancel --full --signal=KILL --state=RUNNING $(squeue -h -o %A 2>/dev/null) 2>/dev/null || true
        scancel $(squeue -h -o %A 2>/dev/null) 2>/dev/null || true
        for _ in $(seq 100); do [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.1; done
        for _ in $(seq 100); do pgrep -f "slurmstepd: \\[" >/dev/null || break; sleep 0.1; done
    fi
    for name in slurmd slurmctld munged; do
        case $name in
            munged) pidfile="$CLUSTER/munge/munged.pid" ;;
            *) pidfile="$CLUSTER/state/$name.pid" ;;
        esac
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    done
    # Anything a job left (a process whose command names this cluster's folder) goes too.
    for pid in $(pgrep -f "$CLUSTER/" || true); do
        [ "$pid" != $$ ] && kill -KILL "$pid" 2>/dev/null || true
    done
}
