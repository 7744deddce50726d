#!/bin/bash
# A batch job that gates its own allocation with fabricd preflight before its real work, for sites
# without the PrologSlurmctld (deploy/slurm/fabricd-prolog.sh; docs/preflight.md). Users cannot drain
# nodes: on exclusion the job resubmits itself without the excluded nodes and ends.
#
#   sbatch deploy/slurm/sbatch-example.sh
#SBATCH --job-name=train
#SBATCH --nodes=8
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=04:00:00
set -u

# the fabric's probe key, readable by you (or FABRICD_PROBE_KEY in the environment)
key_file=${FABRICD_KEY_FILE:-$HOME/.fabricd/probe.key}
excluded=$(mktemp)
trap 'rm -f "$excluded"' EXIT

# runs on the batch host, asks every node's agent over the network: one command, no srun step
fabricd preflight --nodes "$SLURM_JOB_NODELIST" --key-file "$key_file" --timeout 60s --exclude-file "$excluded"
rc=$?
case $rc in
  0) ;;
  1)
    if [ ! -s "$excluded" ]; then
      echo "fabricd preflight found bad links but excluded no node (see above): running" >&2
    elif [ "${FABRICD_RESUBMITS:-0}" -ge 3 ]; then
      echo "fabricd preflight excluded $(cat "$excluded") again, after 3 resubmissions: giving up" >&2
      exit 1
    else
      # the same script again, without these nodes and the ones excluded before (sbatch passes the
      # environment on: FABRICD_EXCLUDED and FABRICD_RESUBMITS reach the next run)
      FABRICD_EXCLUDED="$(cat "$excluded")${FABRICD_EXCLUDED:+,$FABRICD_EXCLUDED}"
      FABRICD_RESUBMITS=$((${FABRICD_RESUBMITS:-0} + 1))
      export FABRICD_EXCLUDED FABRICD_RESUBMITS
      echo "fabricd preflight excluded $(cat "$excluded"): resubmitting without $FABRICD_EXCLUDED" >&2
      sbatch --exclude="$FABRICD_EXCLUDED" "$0"
      exit 0
    fi
    ;;
  *)
    echo "fabricd preflight could not gate this job (exit $rc): running anyway" >&2
    ;;
esac

srun --kill-on-bad-exit=1 ./train.sh
