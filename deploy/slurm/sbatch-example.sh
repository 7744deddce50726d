#!/bin/bash
# A batch job that gates its own allocation with fabricd preflight before its real work, for sites
# without the PrologSlurmctld (deploy/slurm/fabricd-prolog.sh; docs/preflight.md). Users cannot drain
# nodes, and a script cannot resubmit itself with the options it was given on the command line: on
# exclusion the job does not run its work and ends FAILED, exit code 3, with one line saying which
# nodes to leave out when you submit it again (sbatch --exclude=...).
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
    else
      nodes=$(tr -d '\n' <"$excluded")
      echo "fabricd preflight: job ${SLURM_JOB_ID:-?} did not run: nodes $nodes failed the gate or could not be judged (reasons above); submit it again with the same options and --exclude=$nodes" >&2
      exit 3
    fi
    ;;
  *)
    echo "fabricd preflight could not gate this job (exit $rc): running anyway" >&2
    ;;
esac

srun --kill-on-bad-exit=1 ./train.sh
