/* runtimes.c — the default ClusterTrainingRuntimes of Kubeflow Trainer
 * v2.3.0 (manifests/base/runtimes): torch-distributed, its manifest as
 * upstream publishes it (torch_distributed.yaml, less its licence
 * header), stored on a new store's first start (trainjob.h). */
#include "common/log.h"
#include "kinds/trainjob/internal.h"
#include "kinds/trainjob/trainjob.h"
#include "kube/meta.h"
#include "pod/yamljson.h"
#include "store/store.h"

#include <string.h>

/* github.com/kubeflow/trainer v2.3.0 manifests/base/runtimes/torch_distributed.yaml */
static const char torch_distributed[] =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: ClusterTrainingRuntime\n"
    "metadata:\n"
    "  name: torch-distributed\n"
    "  labels:\n"
    "    trainer.kubeflow.org/framework: torch\n"
    "spec:\n"
    "  mlPolicy:\n"
    "    numNodes: 1\n"
    "    torch: {}\n"
    "  template:\n"
    "    spec:\n"
    "      replicatedJobs:\n"
    "        - name: node\n"
    "          template:\n"
    "            metadata:\n"
    "              labels:\n"
    "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
    "            spec:\n"
    "              template:\n"
    "                spec:\n"
    "                  containers:\n"
    "                    - name: node\n"
    "                      image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\n";

static const char *const manifests[] = {torch_distributed, NULL};

int sl_trainjob_install_runtimes(sl_store_t *store, sl_error_t *err)
{
    for (size_t i = 0; manifests[i]; i++) {
        json_t *docs = sl_yaml_to_json(manifests[i], strlen(manifests[i]), err);
        if (!docs)
            return -1;
        json_t *rt = json_incref(json_array_get(docs, 0)); /* one document */
        json_decref(docs);
        if (!json_is_object(rt)) {
            json_decref(rt);
            sl_errprintf(err, "the manifest of the default runtime %zu is no object", i);
            return -1;
        }
        trainjob_runtime_ops.defaults(rt);
        trainjob_runtime_ops.prepare_create(rt);
        int rc = sl_store_create(store, TJ_RES_CRT, rt, err);
        if (rc == 0)
            sl_info("ClusterTrainingRuntime %s installed (Kubeflow Trainer's default)",
                    sl_kube_name(rt));
        json_decref(rt);
        if (rc < 0)
            return -1;
    }
    return 0;
}
