"""PBS and SGE clusters (``--cluster pbs``, ``sge``) are made by the code path that makes
Slurm's (tests/test_slurm.py runs that one against a real Slurm); no such scheduler runs
here, so their job scripts are checked as dask-jobqueue writes them, without submitting."""

import importlib.util

import pytest

from tilesweep.cluster.jobqueue import cluster_class, job_options, settings

# Not pytest.importorskip: importing dask_jobqueue replaces this process's SIGINT handler
# with sys.exit() (cluster_class puts tilesweep's back), and the Ctrl-C tests that run later
# in the same process would exit 0 in silence.
pytestmark = [pytest.mark.cluster,  # each cluster object starts a scheduler
              pytest.mark.skipif(importlib.util.find_spec("dask_jobqueue") is None,
                                 reason="dask-jobqueue is not installed (pip install 'tilesweep[hpc]')")]

OPTIONS = ["cores=2", "memory=4GB", "walltime=01:00:00", "interface=lo", "queue=short"]


@pytest.mark.parametrize("kind, directive, walltime", [("pbs", "#PBS", "walltime=01:00:00"),
                                                      ("sge", "#$", "h_rt=01:00:00"),
                                                      ("slurm", "#SBATCH", "-t 01:00:00")])
def test_batch_job_scripts_run_one_single_threaded_worker_per_core(kind, directive, walltime, tmp_path):
    cls = cluster_class(kind)
    with cls(**job_options(kind, settings(OPTIONS), tmp_path)) as cluster:
        script = cluster.job_script()
    assert directive in script and walltime in script
    assert "--nworkers 2" in script and "--nthreads 1" in script  # processes = cores
    assert "--memory-limit 1.86GiB" in script, script  # the job's 4 GB (4e9 bytes) over its 2 processes
