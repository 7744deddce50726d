#!/bin/bash
# fabricd preflight as Slurm's PrologSlurmctld (docs/preflight.md): before a job starts, gate its
# node set. Every node passes: the job starts. Some are excluded: they are drained, each with its
# reason, and the job is requeued (the scheduler places it again, without them). Nodes the gate could
# not judge (unknown: an agent restarting, of an older release, refusing the key, busy) are not
# drained unless FABRICD_PREFLIGHT_ON_UNKNOWN says so. The gate could not run (bad input, too few
# nodes kept, fabricd itself failing or running out of time) or a drain failed: logged, nothing more
# is drained, and the job runs or is failed as FABRICD_PREFLIGHT_ON_ERROR says. A job is sent back
# at most FABRICD_PREFLIGHT_MAX_REQUEUE times; then it is held, or runs, as
# FABRICD_PREFLIGHT_ON_MAX_REQUEUE says.
#
# slurm.conf:   PrologSlurmctld=/usr/share/fabricd/slurm/fabricd-prolog.sh   (the Debian package's copy)
#               PrologEpilogTimeout=120     (more than FABRICD_PREFLIGHT_TIMEOUT)
# Runs as SlurmUser on the controller, which must reach the agents' port and read the probe key: put
# that user in group fabricd (adduser slurm fabricd) and restart slurmctld. Check the setup as that
# user before enabling it: sudo -u slurm /usr/share/fabricd/slurm/fabricd-prolog.sh --check
#
# Settings: environment variables, or the same names in /etc/fabricd/preflight.env (sourced when it
# exists; FABRICD_PREFLIGHT_ENV names another file). A settings file this user cannot read is not
# taken for none: its settings, FABRICD_PREFLIGHT_ON_ERROR among them, are unknown, so every job
# fails the prolog (logged at priority err) until the user can read it; --check says so:
#   FABRICD                    the fabricd command (default: fabricd on PATH)
#   FABRICD_PREFLIGHT_KEY_FILE the fabric's probe key (default: /etc/fabricd/probe.key)
#   FABRICD_PREFLIGHT_PORT     the agents' HTTP port (default: 9530)
#   FABRICD_PREFLIGHT_TIMEOUT  the gate's time budget, --timeout (default: 60s)
#   FABRICD_PREFLIGHT_ARGS     more options for fabricd preflight (e.g. "--bandwidth none --unknown pass")
#   FABRICD_PREFLIGHT_MIN_NODES  jobs with fewer nodes are not gated (default: 2: the fabric matters
#                              between nodes)
#   FABRICD_PREFLIGHT_MAX_DRAIN  drain at most this many nodes for one job (default: 8); more
#                              to drain is taken for a problem of the gate or the whole fabric
#                              (a wrong key, the controller cut off) and handled as an error
#   FABRICD_PREFLIGHT_ON_UNKNOWN  what an unknown node does: run (default): logged, not drained, the
#                              job may run on it; drain: drained like an excluded one; fail: the job
#                              does not start (the prolog fails)
#   FABRICD_PREFLIGHT_ON_ERROR run (default): the job starts ungated; fail: the prolog fails, and
#                              Slurm requeues a batch job and cancels an interactive one. Either
#                              way the error is logged at priority err. Errors include a probe key
#                              this user cannot read (said with the reason: missing, permission denied)
#   FABRICD_PREFLIGHT_MAX_REQUEUE  how many times one job is sent back, by a requeue or a failed
#                              prolog (default: 3); counted in the log folder, job-<id>.attempts
#   FABRICD_PREFLIGHT_ON_MAX_REQUEUE  past that: hold (default): the job is requeued held
#                              (scontrol requeuehold), pending until someone releases it; run: the
#                              job starts on the nodes it has
#   FABRICD_PREFLIGHT_LOG_DIR  where each job's verdict JSON, its attempt count and the log go
#                              (default: /var/log/fabricd/preflight)
#   FABRICD_PREFLIGHT_GUARD_SECONDS  how long past the budget fabricd may take before timeout(1)
#                              stops it (default: 30; the JVM's start, a stall)
#   SCONTROL                   the scontrol command (default: scontrol on PATH)
set -u

user=$(id -un 2>/dev/null || id -u)
env_file=${FABRICD_PREFLIGHT_ENV:-/etc/fabricd/preflight.env}
env_problem=
if [ -f "$env_file" ] && [ -r "$env_file" ]; then
  # shellcheck source=/dev/null
  . "$env_file"
else
  # missing: the defaults; anything else is a problem. The shell's own open tells missing from
  # permission denied (a folder it may not enter makes both look missing to test -e).
  why=$(LC_ALL=C bash -c ': <"$1"' sh "$env_file" 2>&1)
  case $why in
    *'No such file or directory'*) ;;
    *'Permission denied'*)
      env_problem="cannot read the settings file $env_file as user $user: permission denied, so its settings are unknown and no job starts until it can; the package's file is root:fabricd 0640 in a 0750 folder: adduser $user fabricd, then restart slurmctld (it keeps the groups it started with)" ;;
    '')
      env_problem="the settings file $env_file is not a regular file, so its settings are unknown and no job starts until it is one" ;;
    *)
      env_problem="cannot read the settings file $env_file as user $user: ${why##*: }, so its settings are unknown and no job starts until it can" ;;
  esac
fi

fabricd=${FABRICD:-fabricd}
key_file=${FABRICD_PREFLIGHT_KEY_FILE:-/etc/fabricd/probe.key}
port=${FABRICD_PREFLIGHT_PORT:-9530}
budget=${FABRICD_PREFLIGHT_TIMEOUT:-60s}
min_nodes=${FABRICD_PREFLIGHT_MIN_NODES:-2}
max_drain=${FABRICD_PREFLIGHT_MAX_DRAIN:-8}
on_unknown=${FABRICD_PREFLIGHT_ON_UNKNOWN:-run}
on_error=${FABRICD_PREFLIGHT_ON_ERROR:-run}
max_requeue=${FABRICD_PREFLIGHT_MAX_REQUEUE:-3}
on_max=${FABRICD_PREFLIGHT_ON_MAX_REQUEUE:-hold}
log_dir=${FABRICD_PREFLIGHT_LOG_DIR:-/var/log/fabricd/preflight}
scontrol=${SCONTROL:-scontrol}
job=${SLURM_JOB_ID:-unknown}
nodes=${SLURM_JOB_NODELIST:-}

mkdir -p "$log_dir" 2>/dev/null
log_file=$log_dir/preflight.log
attempts_file=$log_dir/job-$job.attempts

# One line to the log folder, syslog (at PRIORITY) and stderr.
say() {
  local priority=$1 line
  shift
  line="$(date -u +%Y-%m-%dT%H:%M:%SZ) job=$job $*"
  echo "$line" >>"$log_file" 2>/dev/null
  command -v logger >/dev/null 2>&1 && logger -t fabricd-preflight -p "$priority" -- "job=$job $*"
  echo "fabricd-prolog: $*" >&2
}
log() { say user.notice "$@"; }
alarm() { say user.err "$@"; }

# A setting out of its range is a configuration error: said once, and the default used.
case $on_unknown in run|drain|fail) ;; *) log "FABRICD_PREFLIGHT_ON_UNKNOWN=$on_unknown is not run, drain or fail: using run"; on_unknown=run ;; esac
case $on_error in run|fail) ;; *) log "FABRICD_PREFLIGHT_ON_ERROR=$on_error is not run or fail: using run"; on_error=run ;; esac
case $on_max in hold|run) ;; *) log "FABRICD_PREFLIGHT_ON_MAX_REQUEUE=$on_max is not hold or run: using hold"; on_max=hold ;; esac
case $max_requeue in ''|*[!0-9]*) log "FABRICD_PREFLIGHT_MAX_REQUEUE=$max_requeue is not a number: using 3"; max_requeue=3 ;; esac
case $max_drain in ''|*[!0-9]*) log "FABRICD_PREFLIGHT_MAX_DRAIN=$max_drain is not a number: using 8"; max_drain=8 ;; esac

# The job starts: its attempt count is done with.
start() {
  rm -f "$attempts_file" 2>/dev/null
  exit 0
}

# Sent back too often (or the count cannot be kept): the job is held for a person, or runs.
give_up() {
  if [ "$on_max" = run ]; then
    log "$*: starting the job on the nodes it has (FABRICD_PREFLIGHT_ON_MAX_REQUEUE=run)"
    start
  fi
  if "$scontrol" requeuehold "$job"; then
    rm -f "$attempts_file" 2>/dev/null
    log "$*: the job is requeued held; check the nodes in $log_dir/job-$job.json, then release it with: scontrol release $job"
    exit 0
  fi
  log "$*: scontrol requeuehold $job failed: failing the prolog"
  exit 1
}

# The job does not start now: requeued by this script (requeue) or by Slurm after a failed prolog
# (fail). Counted per job, so that a fabric that keeps failing cannot cycle a job without end.
send_back() {
  local how=$1 n
  shift
  n=$(cat "$attempts_file" 2>/dev/null)
  case $n in ''|*[!0-9]*) n=0 ;; esac
  if [ "$n" -ge "$max_requeue" ]; then
    give_up "$*: sent back $n times already (FABRICD_PREFLIGHT_MAX_REQUEUE=$max_requeue)"
  fi
  if ! echo $((n + 1)) 2>/dev/null >"$attempts_file"; then
    give_up "$*: cannot count the job's attempts in $attempts_file"
  fi
  if [ "$how" = fail ]; then
    alarm "$* (attempt $((n + 1)) of $max_requeue): failing the prolog, so that Slurm requeues (batch) or cancels the job"
    exit 1
  fi
  if "$scontrol" requeue "$job"; then
    log "$* (attempt $((n + 1)) of $max_requeue): requeued, to be placed again without the drained nodes"
    exit 0
  fi
  log "scontrol requeue $job failed: failing the prolog, so that Slurm requeues (batch) or cancels the job"
  exit 1
}

# The gate could not decide: let the job run, or fail the prolog; at priority err either way.
gate_error() {
  if [ "$on_error" = fail ]; then
    send_back fail "error: $* (FABRICD_PREFLIGHT_ON_ERROR=fail)"
  fi
  alarm "error: $* (the job runs ungated; FABRICD_PREFLIGHT_ON_ERROR=fail stops it instead)"
  start
}

# What keeps this user from reading the probe key, in words; nothing when it can (told apart as the
# settings file's are). fabricd holds the key to its whole rule (owner, group, mode) at the gate.
key_problem() {
  local why
  [ -f "$key_file" ] && [ -r "$key_file" ] && return 0
  why=$(LC_ALL=C bash -c ': <"$1"' sh "$key_file" 2>&1)
  case $why in
    *'No such file or directory'*)
      echo "the probe key $key_file does not exist: copy the fabric's key there (owner root, group fabricd, mode 0640) or set FABRICD_PREFLIGHT_KEY_FILE" ;;
    *'Permission denied'*)
      echo "cannot read the probe key $key_file as user $user: permission denied; the key's rule is owner root, group fabricd, mode 0640 and every user that reads it in group fabricd: adduser $user fabricd, then restart slurmctld (it keeps the groups it started with)" ;;
    '')
      echo "the probe key $key_file is not a regular file" ;;
    *)
      echo "cannot read the probe key $key_file as user $user: ${why##*: }" ;;
  esac
}

# What keeps this user from writing the log folder, in words; nothing when it can. The package makes
# it root:fabricd 2770: the group is the way in.
log_problem() {
  [ -d "$log_dir" ] && [ -w "$log_dir" ] && return 0
  if [ -d "$log_dir" ]; then
    echo "user $user cannot write it: adduser $user fabricd (the package makes it root:fabricd 2770), then restart slurmctld"
  else
    echo "it does not exist: install -d -o root -g fabricd -m 2770 $log_dir (the package's layout), and adduser $user fabricd"
  fi
}

# What fabricd itself says of the key (its whole rule) and of FABRICD_PREFLIGHT_ARGS: fabricd
# preflight --check, which reads the key as the gate does and asks no agent; nothing when it takes them.
fabricd_problem() {
  local out
  # shellcheck disable=SC2086  # FABRICD_PREFLIGHT_ARGS is a list of options
  out=$($fabricd preflight --check --port "$port" --key-file "$key_file" --timeout "$budget" ${FABRICD_PREFLIGHT_ARGS:-} 2>&1 >/dev/null) \
    && return 0
  echo "${out%%$'\n'*}"
}

# --check: the setup as this user sees it (run it as SlurmUser), one line each, exit 1 on a problem.
if [ "${1:-}" = --check ]; then
  problems=0
  check() { if [ -z "$2" ]; then echo "ok: $1"; else echo "FAIL: $1: $2"; problems=$((problems + 1)); fi; }
  if [ -z "$env_problem" ] && ! [ -f "$env_file" ]; then
    echo "ok: no settings file $env_file: the defaults"
  else
    check "the settings file $env_file is readable" "$env_problem"
  fi
  key=$(key_problem)
  check "the probe key $key_file is readable" "$key"
  runs=$($fabricd --version >/dev/null 2>&1 || echo "'$fabricd --version' fails: set FABRICD to the fabricd command")
  check "the command $fabricd runs" "$runs"
  if [ -z "$key$runs" ]; then
    check "fabricd takes the probe key (its file's rule) and FABRICD_PREFLIGHT_ARGS (fabricd preflight --check)" "$(fabricd_problem)"
  fi
  check "the command $scontrol is there" "$(command -v "$scontrol" >/dev/null 2>&1 || echo "not found: set SCONTROL")"
  check "the log folder $log_dir is writable" "$(log_problem)"
  if [ -n "$env_problem" ]; then
    echo "FABRICD_PREFLIGHT_ON_ERROR is unknown (the settings file cannot be read): every job fails the prolog until it can"
  else
    echo "FABRICD_PREFLIGHT_ON_ERROR=$on_error: when the gate cannot decide, $([ "$on_error" = fail ] && echo "the job does not start" || echo "the job starts ungated")"
  fi
  [ "$problems" = 0 ] && exit 0
  exit 1
fi

if [ -z "$nodes" ]; then
  log "no SLURM_JOB_NODELIST: nothing to gate"
  exit 0
fi
# settings that cannot be read are not the defaults: the job does not start, whatever they say
if [ -n "$env_problem" ]; then
  alarm "error: $env_problem"
  send_back fail "the settings file $env_file cannot be read"
fi
count=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-}}
if [ -n "$count" ] && [ "$count" -lt "$min_nodes" ] 2>/dev/null; then
  exit 0
fi
problem=$(key_problem)
[ -z "$problem" ] || gate_error "$problem"
# attempt counts of jobs that never came back (cancelled while pending)
find "$log_dir" -maxdepth 1 -name 'job-*.attempts' -mtime +30 -delete 2>/dev/null

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
    start
    ;;
  1)
    ;;
  124|137)
    gate_error "fabricd preflight ran past its time budget ($budget + ${FABRICD_PREFLIGHT_GUARD_SECONDS:-30} s) and was stopped"
    ;;
  *)
    # exit 2 with a list (too few nodes kept): the nodes it named are reported, never drained
    named=$(cut -f 1 "$work/excluded.tsv" 2>/dev/null | paste -sd , -)
    gate_error "fabricd preflight exit $rc: ${why:-no message}${named:+ (nothing drained; it named $named)}"
    ;;
esac

# The list: name, tab, verdict (exclude or unknown), tab, reason. Anything else (a fabricd of another
# release, a name Slurm would expand to several nodes) and nothing is drained.
[ -f "$work/excluded.tsv" ] || gate_error "fabricd preflight exit 1 without its exclude list: ${why:-no message}"
drain=()
reasons=()
unknown=()
while IFS=$'\t' read -r node state reason; do
  [ -n "$node$state" ] || continue
  if ! [[ $node =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || { [ "$state" != exclude ] && [ "$state" != unknown ]; }; then
    gate_error "the exclude list has a line that is not name, tab, exclude|unknown, tab, reason: '${node:0:40}'; is fabricd of the same release as this script?"
  fi
  reason=${reason//[^[:print:]]/}
  reason=${reason//\"/\'}
  if [ "$state" = exclude ] || [ "$on_unknown" = drain ]; then
    drain+=("$node")
    if [ "$state" = exclude ]; then
      reasons+=("fabricd preflight: ${reason:0:200}")
    else
      reasons+=("fabricd preflight: unknown: ${reason:0:200}")
    fi
  else
    unknown+=("$node (${reason:0:200})")
  fi
done <"$work/excluded.tsv"

for u in ${unknown[@]+"${unknown[@]}"}; do
  log "unknown, not drained: $u"
done
if [ ${#drain[@]} -eq 0 ]; then
  if [ ${#unknown[@]} -gt 0 ] && [ "$on_unknown" = fail ]; then
    send_back fail "${#unknown[@]} nodes unknown (FABRICD_PREFLIGHT_ON_UNKNOWN=fail)"
  fi
  if [ ${#unknown[@]} -gt 0 ]; then
    log "${#unknown[@]} nodes unknown, none excluded: the job runs (FABRICD_PREFLIGHT_ON_UNKNOWN=run; verdict $verdict)"
  else
    log "bad links but no node excluded (see $verdict): the job runs; check the links named there"
  fi
  start
fi
names=$(IFS=,; echo "${drain[*]}")
if [ ${#drain[@]} -gt "$max_drain" ]; then
  gate_error "${#drain[@]} nodes to drain ($names), more than FABRICD_PREFLIGHT_MAX_DRAIN=$max_drain: not draining them (a wrong key or a cut-off controller looks like this; see $verdict)"
fi
log "drain: $names (${#drain[@]} of the job's nodes; verdict $verdict)"
failed=()
for i in "${!drain[@]}"; do
  if "$scontrol" update NodeName="${drain[$i]}" State=DRAIN Reason="${reasons[$i]}"; then
    log "drained ${drain[$i]}: ${reasons[$i]}"
  else
    failed+=("${drain[$i]}")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  # requeued, the job could be placed on the very nodes that failed the gate
  gate_error "could not drain $(IFS=,; echo "${failed[*]}") (scontrol update failed): not requeueing the job"
fi
send_back requeue "drained $names"
