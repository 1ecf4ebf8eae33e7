#!/bin/sh
# In each srun task of LAUNCH=srun, before your own script or module: torchrun's names for what srun says ($1 = tasks
# per node, the same on every node: the step's --ntasks-per-node), then the program ($2...). DeepSpeed's
# `init_distributed()` wants RANK, WORLD_SIZE and LOCAL_RANK beside MASTER_ADDR and MASTER_PORT, and without any of
# them looks for an MPI world through mpi4py instead (deepspeed/comm/comm.py, v0.19.8: init_distributed ->
# mpi_discovery), which the image lacks. The project's own train and check read srun's SLURM_* themselves
# (app/common/cluster.py), which also say who launched them.
RANK=${SLURM_PROCID:?srun sets it} WORLD_SIZE=${SLURM_STEP_NUM_TASKS:?srun sets it}
LOCAL_RANK=${SLURM_LOCALID:?srun sets it} LOCAL_WORLD_SIZE=$1
export RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE
shift
exec "$@"
