/* install — Kubeflow Trainer's default ClusterTrainingRuntime stored into
 * a new store as its manifest says (torch-distributed: mlPolicy torch,
 * one replicated job "node" of the trainer, PyTorch's image). */
#include "common/tap.h"
#include "kinds/trainjob/internal.h"
#include "kinds/trainjob/trainjob.h"
#include "kube/meta.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    tap_plan(4);
    char dir[] = "/tmp/sl-tj-install.XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof(path), "%s/objects.db", dir);
    sl_error_t err = SL_ERROR_INIT;
    sl_store_t *s = sl_store_open(path, &err);
    ok(s && sl_trainjob_install_runtimes(s, &err) == 0, "installed (%s)", err.text);
    json_t *rt = s ? sl_store_get(s, TJ_RES_CRT, NULL, "torch-distributed") : NULL;
    ok(rt && json_is_object(sl_kube_path(rt, "spec.mlPolicy.torch")), "torch-distributed, torch");
    const char *why = NULL;
    json_t *rj = trainjob_trainer_rjob(rt, &why);
    is_str(json_string_value(json_object_get(rj, "name")), "node", "its trainer's job: node");
    is_str(sl_kube_label(rt, "trainer.kubeflow.org/framework"), "torch", "its labels");
    json_decref(rt);
    sl_store_close(s);
    sl_error_clear(&err);
    unlink(path);
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return tap_done();
}
