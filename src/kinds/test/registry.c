/* registry — every registered workload kind's row is served and well
 * formed: the API's table holds the core resources and then each kind's
 * row (nothing dropped for want of room), store names and plurals are
 * unique, each row is found by group/version/plural, and its pod template
 * paths are dotted paths. */
#include "api/internal.h"
#include "api/resource.h"
#include "common/tap.h"
#include "kinds/kind.h"

#include <string.h>

static bool path_ok(const char *p)
{
    if (!p || !*p || *p == '.' || p[strlen(p) - 1] == '.' || strstr(p, ".."))
        return false;
    for (const char *s = p; *s; s++)
        if (*s == '*' && ((s > p && s[-1] != '.') || (s[1] && s[1] != '.')))
            return false;
    return true;
}

int main(void)
{
    size_t served = 0, kinds = 0;
    for (const api_resource_t *r = api_resources; r->name; r++)
        served++;
    for (const sl_kind_t *const *k = sl_kinds; *k; k++)
        kinds++;
    ok(served < API_MAX_RESOURCES, "the table has room: %zu rows of %d", served, API_MAX_RESOURCES);
    const api_resource_t *prev = NULL;
    for (size_t i = 0; i < kinds; i++) {
        const sl_kind_t *k = sl_kinds[i];
        const api_resource_t *r = api_resource_find(k->api.group, k->api.version, k->api.name);
        ok(r && !strcmp(r->store_name, k->api.store_name) && (!prev || r == prev + 1),
           "%s: served, found by group, version and plural, in registry order", k->api.kind);
        if (!r)
            continue;
        prev = r;
        ok(sl_kind_by_store(k->api.store_name) == k && sl_kind_by_resource(r) == k,
           "%s: found by store name", k->api.kind);
        size_t dup = 0;
        for (const api_resource_t *o = api_resources; o->name; o++)
            dup += !strcmp(o->store_name, r->store_name) ||
                   (!strcmp(o->name, r->name) && !strcmp(o->group, r->group));
        ok(dup == 1, "%s: store name and plural unique", k->api.kind);
        bool paths = true;
        for (size_t t = 0;
             t < sizeof k->pod_templates / sizeof *k->pod_templates && k->pod_templates[t]; t++)
            paths = paths && path_ok(k->pod_templates[t]);
        ok(paths, "%s: pod template paths are dotted paths", k->api.kind);
        ok(!k->owns_pods || k->ctl.reconcile || k->ctl.reconcile_all,
           "%s: a kind that owns pods has a controller", k->api.kind);
    }
    ok(!sl_kind_by_store("pods") && !sl_kind_by_store(NULL), "core resources are no kind");
    return tap_done();
}
