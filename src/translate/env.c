/* env.c — container environments by Kubernetes rules (envFrom, then env in
 * order; $(VAR) expansion of values), base64 and object helpers. */
#include "translate/internal.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/b64.h"
#include "common/xalloc.h"
#include "kube/quantity.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *sl_k8s_expand(const char *in, const char *(*lookup)(void *arg, const char *name), void *arg)
{
    sl_buf_t b = SL_BUF_INIT;
    size_t n = strlen(in), checkpoint = 0;
    for (size_t cur = 0; cur < n; cur++) {
        if (in[cur] != '$' || cur + 1 >= n)
            continue;
        sl_buf_append(&b, in + checkpoint, cur - checkpoint);
        const char *rest = in + cur + 1;
        size_t advance = 1;
        if (rest[0] == '$') {
            sl_buf_putc(&b, '$');
        } else if (rest[0] == '(') {
            const char *close = strchr(rest + 1, ')');
            if (close) {
                char *name = sl_xstrndup(rest + 1, (size_t)(close - rest - 1));
                const char *v = lookup(arg, name);
                if (v)
                    sl_buf_puts(&b, v);
                else
                    sl_buf_printf(&b, "$(%s)", name);
                free(name);
                advance = (size_t)(close - rest) + 1;
            } else {
                sl_buf_puts(&b, "$(");
            }
        } else {
            sl_buf_putc(&b, '$');
            sl_buf_putc(&b, rest[0]);
        }
        cur += advance;
        checkpoint = cur + 1;
    }
    if (checkpoint < n)
        sl_buf_append(&b, in + checkpoint, n - checkpoint);
    return sl_buf_steal(&b);
}

int tr_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + len;
    while (p < e) {
        if (*p == 0)
            return 0;
        if (*p < 0x80) {
            p++;
            continue;
        }
        int n = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p < 0xe0 ? 2 : 0;
        if (!n || *p > 0xf4 || p + n > e)
            return 0;
        for (int i = 1; i < n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
            (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
            return 0;
        p += n;
    }
    return 1;
}

const json_t *tr_find(const json_t *arr, const char *name)
{
    size_t i;
    json_t *o;
    if (!json_is_array(arr))
        return NULL;
    json_array_foreach(arr, i, o)
    {
        const char *n = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
        if (n && !strcmp(n, name))
            return o;
    }
    return NULL;
}

int tr_obj_value(const json_t *obj, int secret, const char *key, char **data, size_t *len)
{
    const char *strmap = secret ? "stringData" : "data";
    const char *binmap = secret ? "data" : "binaryData";
    const json_t *v = json_object_get(json_object_get(obj, strmap), key);
    if (json_is_string(v)) {
        *len = json_string_length(v);
        *data = sl_xstrndup(json_string_value(v), *len);
        *data = sl_xrealloc(*data, *len + 1);
        memcpy(*data, json_string_value(v), *len);
        (*data)[*len] = 0;
        return 1;
    }
    v = json_object_get(json_object_get(obj, binmap), key);
    if (json_is_string(v)) {
        *data = sl_b64_decode(json_string_value(v), json_string_length(v), len);
        return *data != NULL;
    }
    return 0;
}

const char **tr_obj_keys(const json_t *obj, int secret, size_t *n)
{
    const char *maps[2] = {secret ? "data" : "data", secret ? "stringData" : "binaryData"};
    size_t cap = json_object_size(json_object_get(obj, maps[0])) +
                 json_object_size(json_object_get(obj, maps[1])) + 1;
    const char **keys = sl_xcalloc(cap, sizeof(char *));
    *n = 0;
    for (int m = 0; m < 2; m++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(obj, maps[m]), k, v)
        {
            int dup = 0;
            for (size_t i = 0; i < *n && !dup; i++)
                dup = !strcmp(keys[i], k);
            if (!dup)
                keys[(*n)++] = k;
        }
    }
    /* sorted, as Kubernetes writes and lists keys */
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    return keys;
}

/* ---- the environment ---- */

static void env_set(tr_env_t *e, const char *name, char *value, size_t len, const char *runtime)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strcmp(e->names[i], name)) {
            free(e->values[i]);
            e->values[i] = value;
            e->lens[i] = len;
            e->runtime[i] = runtime;
            return;
        }
    e->names = sl_xrealloc(e->names, (e->n + 1) * sizeof(char *));
    e->values = sl_xrealloc(e->values, (e->n + 1) * sizeof(char *));
    e->lens = sl_xrealloc(e->lens, (e->n + 1) * sizeof(size_t));
    e->runtime = sl_xrealloc(e->runtime, (e->n + 1) * sizeof(char *));
    e->names[e->n] = sl_xstrdup(name);
    e->values[e->n] = value;
    e->lens[e->n] = len;
    e->runtime[e->n] = runtime;
    e->n++;
}

const char *tr_env_get(const tr_env_t *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strcmp(e->names[i], name))
            return e->values[i] && strlen(e->values[i]) == e->lens[i] ? e->values[i] : NULL;
    return NULL;
}

static const char *lookup_env(void *arg, const char *name) { return tr_env_get(arg, name); }

void tr_env_free(tr_env_t *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->names[i]);
        free(e->values[i]);
    }
    free(e->names);
    free(e->values);
    free(e->lens);
    free(e->runtime);
    memset(e, 0, sizeof(*e));
}

static int env_name_ok(const char *k)
{
    if (!*k)
        return 0;
    for (const unsigned char *p = (const unsigned char *)k; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '=')
            return 0;
    return 1;
}

char *tr_field_value(const sl_pod_t *pod, const char *fp)
{
    if (!strcmp(fp, "metadata.name"))
        return sl_xstrdup(pod->name ? pod->name : "");
    if (!strcmp(fp, "metadata.namespace"))
        return sl_xstrdup(pod->namespace_ ? pod->namespace_ : "");
    if (!strcmp(fp, "metadata.uid"))
        return sl_xstrdup(pod->uid ? pod->uid : "");
    if (!strcmp(fp, "spec.serviceAccountName"))
        return sl_xstrdup(pod->service_account);
    int lab = !strncmp(fp, "metadata.labels", 15), ann = !strncmp(fp, "metadata.annotations", 20);
    if (lab || ann) {
        const sl_pod_kv_t *kv = lab ? pod->labels : pod->annotations;
        size_t n = lab ? pod->nlabels : pod->nannotations;
        const char *rest = fp + (lab ? 15 : 20);
        if (!*rest) { /* the whole map, formatted as Kubernetes' FormatMap */
            const sl_pod_kv_t **s = sl_xcalloc(n + 1, sizeof(*s));
            for (size_t i = 0; i < n; i++)
                s[i] = &kv[i];
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(s[j - 1]->key, s[j]->key) > 0; j--) {
                    const sl_pod_kv_t *t = s[j];
                    s[j] = s[j - 1];
                    s[j - 1] = t;
                }
            sl_buf_t b = SL_BUF_INIT;
            for (size_t i = 0; i < n; i++) {
                char *q = sl_go_quote(s[i]->value);
                sl_buf_printf(&b, "%s%s=%s", i ? "\n" : "", s[i]->key, q);
                free(q);
            }
            free(s);
            return sl_buf_steal(&b);
        }
        if (!strncmp(rest, "['", 2)) {
            char *key = sl_xstrndup(rest + 2, strlen(rest) - 4);
            const char *v = lab ? sl_pod_label(pod, key) : sl_pod_annotation(pod, key);
            free(key);
            return sl_xstrdup(v ? v : "");
        }
    }
    return NULL; /* spec.nodeName, status.*: known only on the node */
}

char *tr_resource_value(tr_ctx_t *c, const char *container, const char *resource,
                        const char *divisor)
{
    const sl_pod_container_t *k = sl_pod_container(c->pod, container);
    sl_quantity_t div;
    int64_t d = 1;
    if (divisor && sl_quantity_parse(divisor, &div, NULL) == 0 && div.nanos > 0)
        (void)0;
    else
        sl_quantity_parse("1", &div, NULL);
    int64_t v = 0;
    if (k) {
        int cpu = strstr(resource, "cpu") != NULL;
        int lim = !strncmp(resource, "limits.", 7);
        if (cpu) {
            v = lim ? k->res.cpu_lim_milli : k->res.cpu_req_milli;
            if (v < 0)
                v = lim ? c->cfg->default_cpu_milli : 0;
            /* value in cores / divisor, rounded up: milli / divisor-milli */
            int64_t dm = (int64_t)(div.nanos / 1000000);
            d = dm > 0 ? dm : 1;
        } else if (strstr(resource, "memory") || strstr(resource, "storage")) {
            v = lim ? k->res.mem_lim_bytes : k->res.mem_req_bytes;
            if (v < 0)
                v = lim && strstr(resource, "memory") ? c->cfg->default_mem_bytes : 0;
            int64_t db = (int64_t)(div.nanos / 1000000000);
            d = db > 0 ? db : 1;
        }
    }
    return sl_xasprintf("%lld", (long long)(v / d + (v % d != 0)));
}

void tr_env_add_image(tr_env_t *env, const char *const *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        if (!eq || eq == kv[i])
            continue;
        char *name = sl_xstrndup(kv[i], (size_t)(eq - kv[i]));
        size_t j = 0;
        while (j < env->n && strcmp(env->names[j], name))
            j++;
        if (j == env->n && env_name_ok(name)) /* the container's own value wins */
            env_set(env, name, sl_xstrdup(eq + 1), strlen(eq + 1), NULL);
        free(name);
    }
}

int tr_container_env(tr_ctx_t *c, const sl_pod_container_t *k, const char *path, tr_env_t *env)
{
    memset(env, 0, sizeof(*env));
    for (size_t i = 0; i < k->nenv_from; i++) {
        const sl_pod_envfrom_t *ef = &k->env_from[i];
        const json_t *obj = tr_find(ef->secret ? c->secrets : c->configmaps, ef->ref);
        if (!obj) {
            if (!ef->optional)
                tr_missing(c, "%s %s/%s referenced by %s.envFrom[%zu] not found",
                           ef->secret ? "secret" : "configmap", c->pod->namespace_, ef->ref, path,
                           i);
            continue;
        }
        size_t nk;
        const char **keys = tr_obj_keys(obj, ef->secret, &nk);
        for (size_t j = 0; j < nk; j++) {
            char *name = sl_xasprintf("%s%s", ef->prefix, keys[j]);
            char *data;
            size_t len;
            if (!env_name_ok(name)) {
                tr_warn(c,
                        "%s.envFrom[%zu]: key %s is not a valid environment variable name: "
                        "skipped (as Kubernetes does)",
                        path, i, keys[j]);
            } else if (tr_obj_value(obj, ef->secret, keys[j], &data, &len)) {
                if (memchr(data, 0, len)) {
                    free(data);
                    tr_missing(c,
                               "%s.envFrom[%zu]: key %s holds a NUL byte, which an "
                               "environment variable cannot hold",
                               path, i, keys[j]);
                } else {
                    env_set(env, name, data, len, NULL);
                }
            }
            free(name);
        }
        free(keys);
    }
    for (size_t i = 0; i < k->nenv; i++) {
        const sl_pod_env_t *e = &k->env[i];
        char *data = NULL;
        size_t len = 0;
        switch (e->src) {
        case SL_ENV_VALUE:
            data = sl_k8s_expand(e->value, lookup_env, env);
            len = strlen(data);
            break;
        case SL_ENV_CONFIGMAP_KEY:
        case SL_ENV_SECRET_KEY: {
            int secret = e->src == SL_ENV_SECRET_KEY;
            const json_t *obj = tr_find(secret ? c->secrets : c->configmaps, e->ref);
            if (!obj || !tr_obj_value(obj, secret, e->key, &data, &len)) {
                if (!e->optional)
                    tr_missing(c, "%s.env[%zu] (%s): %s %s/%s%s%s not found", path, i, e->name,
                               secret ? "secret" : "configmap", c->pod->namespace_, e->ref,
                               obj ? " has no key " : "", obj ? e->key : "");
                continue; /* optional and missing: the variable is not set */
            }
            if (memchr(data, 0, len)) {
                free(data);
                tr_missing(c,
                           "%s.env[%zu] (%s): the value contains a NUL byte, which an "
                           "environment variable cannot hold",
                           path, i, e->name);
                continue;
            }
            break;
        }
        case SL_ENV_FIELD:
            data = tr_field_value(c->pod, e->key);
            if (!data) {
                env_set(env, e->name, NULL, 0, e->key);
                continue;
            }
            len = strlen(data);
            break;
        case SL_ENV_RESOURCE_FIELD:
            data = tr_resource_value(c, e->container && *e->container ? e->container : k->name,
                                     e->key, e->divisor);
            len = strlen(data);
            break;
        }
        env_set(env, e->name, data, len, NULL);
    }
    return 0;
}
