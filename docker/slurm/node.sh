#!/usr/bin/env bash
# One node of docker-compose.slurm.yml: `controller` (munged, slurmctld) or `compute`
# (munged, slurmd). The controller makes the munge key once in /etc/munge, the volume all
# nodes share; the compute nodes wait for it and for the controller's port.
set -euo pipefail
role=${1:-compute}
key=/etc/munge/munge.key

if [ "$role" = controller ] && [ ! -s "$key" ]; then
    runuser -u munge -- mungekey --create --keyfile "$key.new"
    mv "$key.new" "$key"
fi
until [ -s "$key" ]; do sleep 0.5; done
runuser -u munge -- munged

case "$role" in
    controller)
        exec slurmctld -D -i ;;
    compute)
        until (exec 3<>/dev/tcp/slurmctld/6817) 2>/dev/null; do sleep 1; done
        exec slurmd -D ;;
    *)
        shift 0
        exec "$@" ;;
esac
