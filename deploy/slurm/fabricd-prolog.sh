#!/bin/bash
# fabricd preflight as Slurm's PrologSlurmctld (docs/preflight.md): before a job starts, gate its
# node set. Every node passes: the job starts. Some are excluded: they are drained, each with its
# reason, and the job is requeued (the scheduler places it again, without them). The gate could not
# run (bad input, too few nodes kept, fabricd itself failing or running out of time): logged, and the
# job runs or is failed as FABRICD_PREFLIGHT_ON_ERROR says.
#
# slurm.conf:   PrologSlurmctld=/usr/share/fabricd/slurm/fabricd-prolog.sh
#               PrologEpilogTimeout=120     (more than FABRICD_PREFLIGHT_TIMEOUT)
# Runs as SlurmUser on the controller, which must reach the agents' port and read the probe key.
#
# Settings: environment variables, or the same names in /etc/fabricd/preflight.env (sourced when it
# exists; FABRICD_PREFLIGHT_ENV names another file):
#   FABRICD                    the fabricd command (default: fabricd on PATH)
#   FABRICD_PREFLIGHT_KEY_FILE the fabric's probe key (default: /etc/fabricd/probe.key)
#   FABRICD_PREFLIGHT_PORT     the agents' HTTP port (default: 9530)
#   FABRICD_PREFLIGHT_TIMEOUT  the gate's time budget, --timeout (default: 60s)
#   FABRICD_PREFLIGHT_ARGS     more options for fabricd preflight (e.g. "--bandwidth none --unknown pass")
#   FABRICD_PREFLIGHT_MIN_NODES  jobs with fewer nodes are not gated (default: 2: the fabric matters
#                              between nodes)
#   FABRICD_PREFLIGHT_MAX_DRAIN  drain at most this many nodes for one job (default: 8); more
#                              excluded is taken for a problem of the gate or the whole fabric
#                              (a wrong key, the controller cut off) and handled as an error
#   FABRICD_PREFLIGHT_ON_ERROR run (default): the job starts ungated; fail: the prolog fails, and
#                              Slurm requeues a batch job and cancels an interactive one
#   FABRICD_PREFLIGHT_LOG_DIR  where each job's verdict JSON and the log go (default:
#                              /var/log/fabricd/preflight)
#   FABRICD_PREFLIGHT_GUARD_SECONDS  how long past the budget fabricd may take before timeout(1)
#                              stops it (default: 30; the JVM's start, a stall)
#   SCONTROL                   the scontrol command (default: scontrol on PATH)
set -u

env_file=${FABRICD_PREFLIGHT_ENV:-/etc/fabricd/preflight.env}
# shellcheck source=/dev/null
[ -r "$env_file" ] && . "$env_file"

fabricd=${FABRICD:-fabricd}
key_file=${FABRICD_PREFLIGHT_KEY_FILE:-/etc/fabricd/probe.key}
port=${FABRICD_PREFLIGHT_PORT:-9530}
budget=${FABRICD_PREFLIGHT_TIMEOUT:-60s}
min_nodes=${FABRICD_PREFLIGHT_MIN_NODES:-2}
max_drain=${FABRICD_PREFLIGHT_MAX_DRAIN:-8}
on_error=${FABRICD_PREFLIGHT_ON_ERROR:-run}
log_dir=${FABRICD_PREFLIGHT_LOG_DIR:-/var/log/fabricd/preflight}
scontrol=${SCONTROL:-scontrol}
job=${SLURM_JOB_ID:-unknown}
nodes=${SLURM_JOB_NODELIST:-}

mkdir -p "$log_dir" 2>/dev/null
log_file=$log_dir/preflight.log

log() {
  local line
  line="$(date -u +%Y-%m-%dT%H:%M:%SZ) job=$job $*"
  echo "$line" >>"$log_file" 2>/dev/null
  command -v logger >/dev/null 2>&1 && logger -t fabricd-preflight -- "job=$job $*"
  echo "fabricd-prolog: $*" >&2
}

# The gate could not decide: let the job run, or fail the prolog.
gate_error() {
  if [ "$on_error" = fail ]; then
    log "error: $* (FABRICD_PREFLIGHT_ON_ERROR=fail: failing the prolog)"
    exit 1
  fi
  log "error: $* (the job runs ungated; FABRICD_PREFLIGHT_ON_ERROR=fail stops it instead)"
  exit 0
}

if [ -z "$nodes" ]; then
  log "no SLURM_JOB_NODELIST: nothing to gate"
  exit 0
fi
count=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-}}
if [ -n "$count" ] && [ "$count" -lt "$min_nodes" ] 2>/dev/null; then
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-preflight.XXXXXX") || gate_error "cannot make a temporary folder"
trap 'rm -rf "$work"' EXIT
verdict=$log_dir/job-$job.json

# fabricd keeps to --timeout itself; timeout(1) is the guard against the JVM not starting or hanging
seconds=$(echo "$budget" | sed -n 's/^\([0-9][0-9]*\)s\{0,1\}$/\1/p; s/^\([0-9][0-9]*\)m$/\1 60/p' | awk '{ print ($2 ? $1 * $2 : $1) }')
guard=()
if [ -n "$seconds" ] && command -v timeout >/dev/null 2>&1; then
  guard=(timeout -k 5 $((seconds + ${FABRICD_PREFLIGHT_GUARD_SECONDS:-30})))
fi
# shellcheck disable=SC2086  # FABRICD_PREFLIGHT_ARGS is a list of options
"${guard[@]}" $fabricd preflight --nodes "$nodes" --port "$port" --key-file "$key_file" --timeout "$budget" \
  --format json --exclude-file "$work/excluded" --exclude-list "$work/excluded.tsv" ${FABRICD_PREFLIGHT_ARGS:-} \
  >"$work/verdict.json" 2>"$work/stderr"
rc=$?
cp "$work/verdict.json" "$verdict" 2>/dev/null
# its last line on stderr is the error, when there is one (the lines before: one per phase)
why=$(tail -n 1 "$work/stderr")

case $rc in
  0)
    log "pass: $nodes"
    exit 0
    ;;
  1)
    ;;
  124|137)
    gate_error "fabricd preflight ran past its time budget ($budget + ${FABRICD_PREFLIGHT_GUARD_SECONDS:-30} s) and was stopped"
    ;;
  *)
    gate_error "fabricd preflight exit $rc: ${why:-no message}"
    ;;
esac

excluded=$(cat "$work/excluded" 2>/dev/null)
if [ -z "$excluded" ]; then
  log "bad links but no node excluded (see $verdict): the job runs; check the links named there"
  exit 0
fi
n=$(grep -c . "$work/excluded.tsv")
if [ "$n" -gt "$max_drain" ]; then
  gate_error "$n nodes excluded ($excluded), more than FABRICD_PREFLIGHT_MAX_DRAIN=$max_drain: not draining them (a wrong key or a cut-off controller looks like this; see $verdict)"
fi
log "exclude: $excluded ($n of the job's nodes; verdict $verdict)"
failed=0
while IFS=$'\t' read -r node reason; do
  [ -n "$node" ] || continue
  reason=${reason//\"/\'}
  reason="fabricd preflight: ${reason:0:200}"
  if "$scontrol" update NodeName="$node" State=DRAIN Reason="$reason"; then
    log "drained $node: $reason"
  else
    log "could not drain $node (scontrol update failed)"
    failed=1
  fi
done <"$work/excluded.tsv"
if [ "$failed" = 1 ]; then
  log "some excluded nodes could not be drained: the requeued job may be placed on them again"
fi
if "$scontrol" requeue "$job"; then
  log "requeued: the job is placed again without the drained nodes"
  exit 0
fi
log "scontrol requeue $job failed: failing the prolog, so that Slurm requeues (batch) or cancels the job"
exit 1
