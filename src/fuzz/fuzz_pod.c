/* fuzz_pod.c — libFuzzer: bytes → YAML/JSON → Pod validation → schema →
 * translation. Nothing may crash, leak or trip a sanitizer. */
#include "kube/status.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "pod/yamljson.h"
#include "translate/translate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *docs = NULL;
    json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    if (!j) {
        docs = sl_yaml_to_json((const char *)data, size, NULL);
        j = docs ? json_incref(json_array_get(docs, 0)) : NULL;
    }
    if (!j) {
        json_decref(docs);
        return 0;
    }
    sl_strv_free(sl_schema_unknown_fields("Pod", j, NULL));
    sl_strv_free(sl_schema_pod_warnings(j, NULL));
    json_t *copy = json_deep_copy(j);
    sl_pod_apply_defaults(copy);
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_spec_update_errors(j, copy, e);
    sl_pod_t *p = sl_pod_parse(copy, e);
    free(sl_err_fields_lines(e));
    json_decref(sl_kube_status_invalid("Pod", NULL, "x", e));
    if (p && p->name && p->namespace_ && p->uid) {
        sl_translate_config_t cfg = {.pods_root = "/p",
                                     .shim_path = "/s",
                                     .default_cpu_milli = SL_TRANSLATE_DEFAULT_CPU_MILLI,
                                     .default_mem_bytes = SL_TRANSLATE_DEFAULT_MEM_BYTES,
                                     .image_store = "/store",
                                     .allow_pre_exec = size & 1};
        sl_translate_result_t *r = NULL;
        if (sl_translate(p, docs, docs, &cfg, &r, e, NULL) == 0)
            sl_translate_result_destroy(r);
    }
    sl_pod_destroy(p);
    sl_error_free(e);
    json_decref(copy);
    json_decref(j);
    json_decref(docs);
    return 0;
}
