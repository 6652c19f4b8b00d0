/* trainjob.h — Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1):
 * TrainJob, TrainingRuntime and ClusterTrainingRuntime, a TrainJob run as
 * ONE gang-scheduled Slurm job (ctl/gang.h) across its numNodes nodes
 * (docs/jobs.md, "TrainJob"). Everything of it is in this folder; its rows
 * are all the rest of slurmlink knows of it (src/kinds/registry.c). */
#ifndef SL_KINDS_TRAINJOB_H
#define SL_KINDS_TRAINJOB_H

#include "common/err.h"
#include "kinds/kind.h"

struct sl_store;

extern const sl_kind_t sl_kind_trainjob;
extern const sl_kind_t sl_kind_trainingruntime;
extern const sl_kind_t sl_kind_clustertrainingruntime;

/* The default ClusterTrainingRuntimes Kubeflow Trainer's manifests install
 * (torch-distributed), stored into a new store (one that has none of the
 * kind and never had: its first start), as `kubectl apply` of the
 * manifests would; an admin may delete or replace them afterwards. 0, or
 * -1 with err. */
int sl_trainjob_install_runtimes(struct sl_store *store, sl_error_t *err);

#endif
