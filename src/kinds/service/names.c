/* names.c — the Service names of a namespace, for its pods' hosts files.
 *
 * There is no cluster IP and no cluster DNS: a Service's name resolves
 * inside a pod to the addresses of its ready endpoints (their nodes'),
 * through the pod's hosts file (docs/serving.md, "Names inside pods"). The
 * controller keeps one file per namespace, root's and 0644, in the
 * namespace's folder of the pods root (0711: read by path only), its name
 * carrying an HMAC of the namespace (ctl_service_names_path): {"entries":
 * [{"ip": ADDR, "hostnames": [...]}]} built from the stored Endpoints'
 * ready addresses. Each pod's shim looks at it every few seconds and
 * rewrites the pod's hosts file when it changed (src/shimlib/hosts.h).
 *
 * The file is written only when its text changes: a pass in which no
 * Endpoints of the namespace changed writes nothing. */
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kinds/service/service.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

/* namespace → the text last written ("" : no file); controller thread only */
static json_t *written;

/* SVC.NS.svc.cluster.local, SVC.NS.svc, SVC.NS, SVC */
static json_t *svc_names(const char *svc, const char *ns)
{
    return json_pack("[o, o, o, s]", json_sprintf("%s.%s.svc.%s", svc, ns, SL_POD_CLUSTER_DOMAIN),
                     json_sprintf("%s.%s.svc", svc, ns), json_sprintf("%s.%s", svc, ns), svc);
}

static void add(json_t *entries, const char *ip, json_t *names)
{
    json_array_append_new(entries, json_pack("{s:s, s:o}", "ip", ip, "hostnames", names));
}

/* one Endpoints' ready addresses: the Service's names at each address
 * once, and an address with a hostname (the pod's spec.hostname, its
 * subdomain the Service) its own names, as kube's DNS answers them */
static void endpoints_entries(json_t *ep, const char *ns, json_t *entries)
{
    const char *svc = sl_kube_name(ep);
    json_t *seen = json_object(), *ss, *a;
    size_t i, j;
    json_array_foreach(json_object_get(ep, "subsets"), i, ss)
        json_array_foreach(json_object_get(ss, "addresses"), j, a)
    {
        const char *ip = json_string_value(json_object_get(a, "ip"));
        const char *host = json_string_value(json_object_get(a, "hostname"));
        if (!ip || !*ip)
            continue;
        if (!json_object_get(seen, ip)) {
            json_object_set_new(seen, ip, json_true());
            add(entries, ip, svc_names(svc, ns));
        }
        if (host && *host) {
            sl_argv_t v = SL_ARGV_INIT;
            sl_pod_dns_names(host, svc, ns, 0, &v);
            json_t *names = json_array();
            for (size_t k = 0; k < v.n; k++)
                json_array_append_new(names, json_string(v.v[k]));
            sl_argv_free(&v);
            add(entries, ip, names);
        }
    }
    json_decref(seen);
}

static int write_text(sl_ctl_t *c, const char *ns, const char *text, sl_error_t *err)
{
    char *path = ctl_service_names_path(c, ns), *dir = sl_xasprintf("%s/%s", c->o.pods_root, ns);
    int rc;
    if (!*text)
        rc = unlink(path) < 0 && errno != ENOENT
                 ? sl_errprintf(err, "unlink %s: %s", path, strerror(errno))
                 : 0;
    else
        rc = sl_mkdir_p(dir, 0711, err) < 0 ? -1
                                            : sl_write_file(path, text, strlen(text), 0644, err);
    free(dir);
    free(path);
    return rc;
}

void svc_names_sync(struct sl_ctl *c, const char *ns)
{
    json_t *eps = sl_store_list(c->store, "endpoints", ns, NULL), *entries = json_array(), *ep;
    size_t i;
    json_array_foreach(eps, i, ep) endpoints_entries(ep, ns, entries);
    json_decref(eps);
    json_t *doc = json_pack("{s:o}", "entries", entries);
    char *text = json_array_size(entries) ? json_dumps(doc, JSON_COMPACT) : sl_xstrdup("");
    json_decref(doc);
    if (!written)
        written = json_object();
    const char *was = json_string_value(json_object_get(written, ns));
    sl_error_t err = SL_ERROR_INIT;
    if (was && !strcmp(was, text))
        ; /* unchanged: the shims have it */
    else if (write_text(c, ns, text, &err) < 0)
        sl_log(LOG_WARNING, "service names of namespace %s: %s", ns, err.text);
    else
        json_object_set_new(written, ns, json_string(text));
    sl_error_clear(&err);
    free(text);
}
