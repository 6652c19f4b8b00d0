/* gpu: the product → GRES type table and Slurm GRES strings. */
#include "gpu/gpu.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static void table(void)
{
    char *t = sl_gpu_type_for_product(NULL, "NVIDIA-H100-80GB-HBM3");
    is_str(t, "h100", "default table: H100 product → h100");
    free(t);
    t = sl_gpu_type_for_product("Big-GPU=big", "Big-GPU");
    is_str(t, "big", "site table row");
    free(t);
    t = sl_gpu_type_for_product("Big-GPU=big", "a100");
    is_str(t, "a100", "a value the table lacks is the type itself");
    free(t);
    ok(!sl_gpu_type_for_product(NULL, "a:b"), "a value that is no GRES type: NULL");
    t = sl_gpu_product_for_type(NULL, "a100");
    is_str(t, "NVIDIA-A100-SXM4-80GB", "type → the first product naming it");
    free(t);
    t = sl_gpu_product_for_type(NULL, "1g.10gb");
    is_str(t, "1g.10gb", "unmapped type → itself");
    free(t);
    sl_error_t e = SL_ERROR_INIT;
    is_int(sl_gpu_types_check(NULL, &e), 0, "default table is valid");
    is_int(sl_gpu_types_check("A=a,B", &e), -1, "a row without = is refused");
    is_int(sl_gpu_types_check("A=a:b", &e), -1, "a type with ':' is refused");
    ok(sl_gpu_type_ok("1g.10gb") && !sl_gpu_type_ok("") && !sl_gpu_type_ok("a b"), "type names");
}

static void gres(void)
{
    sl_gpu_gres_t v[8];
    size_t n = sl_gpu_gres_parse("gpu:h100:2(S:0),shard:4(S:0)", v, 8);
    is_int((int)n, 2, "two entries");
    is_str(v[0].name, "gpu", "name");
    is_str(v[0].type, "h100", "type");
    is_int((int)v[0].count, 2, "count");
    is_str(v[1].name, "shard", "shard");
    is_str(v[1].type, "", "untyped");
    is_int((int)v[1].count, 4, "shard count");
    n = sl_gpu_gres_parse("gpu:a100:1(IDX:1),shard:0(IDX:N/A)", v, 8);
    is_int((int)n, 2, "used: two entries");
    is_str(v[0].index, "1", "IDX");
    is_int((int)v[1].count, 0, "shard 0");
    n = sl_gpu_gres_parse("gpu:2", v, 8);
    is_int((int)n, 1, "untyped gpu");
    is_int((int)v[0].count, 2, "untyped count");
    is_str(v[0].type, "", "no type");
    is_int((int)sl_gpu_gres_parse("(null)", v, 8), 0, "(null) is nothing");
    char *m = sl_gpu_gres_merge("gpu:h100:1,gpu:1,shard:2,gpu:h100:2,gpu:1g.10gb:1");
    is_str(m, "gpu:h100:4,shard:2,gpu:1g.10gb:1", "merge: untyped joins the typed, same types sum");
    free(m);
    m = sl_gpu_gres_merge("gpu:1,gpu:2");
    is_str(m, "gpu:3", "merge: untyped alone sum");
    free(m);
    is_int((int)sl_gpu_gres_parse(NULL, v, 8), 0, "NULL is nothing");
}

static void cel(void)
{
    char *prod = NULL;
    const char *why = NULL;
    is_int(sl_gpu_cel("device.attributes[\"gpu.nvidia.com\"].productName == \"H100\"", &prod, &why),
           0, "productName ==");
    is_str(prod, "H100", "the product");
    free(prod);
    is_int(sl_gpu_cel(" device.driver == \"gpu.nvidia.com\" && "
                      "device.attributes[\"gpu.nvidia.com\"].productName==\"NVIDIA A100\" ",
                      &prod, &why),
           0, "driver && productName");
    is_str(prod, "NVIDIA A100", "... the product");
    free(prod);
    is_int(sl_gpu_cel("device.driver == \"gpu.nvidia.com\"", &prod, &why), 0, "driver alone");
    ok(prod == NULL, "... names no product");
    is_int(sl_gpu_cel("device.attributes[\"gpu.nvidia.com\"].memory > 10", &prod, &why), -1,
           "another attribute is refused");
    ok(why && strstr(why, "slurmlink reads only"), "... saying what is read");
    is_int(sl_gpu_cel("device.driver == \"dra.example.com\"", &prod, &why), -1,
           "another driver is refused");
    is_int(sl_gpu_cel("device.driver == \"gpu.nvidia.com\" || true", &prod, &why), -1,
           "|| is refused");
    is_int(
        sl_gpu_cel("device.attributes[\"gpu.nvidia.com\"].productName == \"a\\\"b\"", &prod, &why),
        -1, "an escape in a literal is refused");
    char *t = sl_gpu_type_for_dra_product(NULL, "NVIDIA H100 80GB HBM3");
    is_str(t, "h100", "DRA productName through the table");
    free(t);
    t = sl_gpu_type_for_dra_product(NULL, "H100");
    is_str(t, "h100", "a short name in lower case");
    free(t);
}

int main(void)
{
    table();
    cel();
    gres();
    return tap_done();
}
