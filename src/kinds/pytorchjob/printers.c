/* src/kinds/pytorchjob/printers.c — the PyTorchJob's Table as kube-apiserver prints a
 * custom resource from its CRD's additionalPrinterColumns (the
 * apiextensions table convertor): NAME, STATE (.status.conditions[-1:].type)
 * and AGE (a date column: the human duration since the timestamp). */
#include "kinds/kubeflow/api.h"
#include "kinds/pytorchjob/pytorchjob.h"
#include "kube/meta.h"

json_t *api_ptj_columns(void)
{
    return json_pack("[o, {s:s, s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:s, s:i}]",
                     api_tj_name_column(), "name", "State", "type", "string", "format", "",
                     "description", "", "priority", 0, "name", "Age", "type", "date", "format", "",
                     "description", "", "priority", 0);
}

json_t *api_ptj_cells(json_t *job, long long now)
{
    json_t *conds = sl_kube_path(job, "status.conditions");
    size_t n = json_array_size(conds);
    const char *state = n ? sl_kube_path_str(json_array_get(conds, n - 1), "type") : NULL;
    char age[32];
    const char *ts = sl_kube_meta_str(job, "creationTimestamp");
    if (ts)
        sl_kube_age(ts, now, age, sizeof(age));
    const char *name = sl_kube_name(job);
    return json_pack("[s, s?, s?]", name ? name : "", state, ts ? age : NULL);
}
