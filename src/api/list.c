/* list.c — GET on a collection: label and field selectors, limit and
 * continue, JSON lists or Tables.
 *
 * Paging: `limit` is honoured with a continue token; later pages read the
 * current state (as kube-apiserver does for an expired snapshot), so a page
 * may show changes made after the first one. Without selectors or paging a
 * JSON list splices the stored texts without parsing them. */
#include "api/internal.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/selector.h"
#include "kube/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int api_parse_selectors(api_req_t *r, const api_resource_t *res, sl_kube_selector_t **ls,
                        sl_kube_selector_t **fs, json_t **status)
{
    sl_error_t err = {""};
    *ls = *fs = NULL;
    *ls = sl_kube_label_selector_parse(api_query(r, "labelSelector"), &err);
    if (!*ls) {
        *status = sl_kube_status_bad_request(err.text);
        return -1;
    }
    *fs = sl_kube_field_selector_parse(api_query(r, "fieldSelector"), res->name, &err);
    if (!*fs) {
        sl_kube_selector_destroy(*ls);
        *ls = NULL;
        *status = sl_kube_status_bad_request(err.text);
        return -1;
    }
    return 0;
}

/* --- continue tokens: base64url(JSON {"v","rv","ns","name"}) --- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *b64_encode(const char *s)
{
    size_t n = strlen(s);
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        sl_buf_putc(&b, b64[(v >> 18) & 63]);
        sl_buf_putc(&b, b64[(v >> 12) & 63]);
        if (i + 1 < n)
            sl_buf_putc(&b, b64[(v >> 6) & 63]);
        if (i + 2 < n)
            sl_buf_putc(&b, b64[v & 63]);
    }
    return sl_buf_steal(&b);
}

static char *b64_decode(const char *s)
{
    sl_buf_t b = SL_BUF_INIT;
    unsigned v = 0;
    int bits = 0;
    for (; *s && *s != '='; s++) {
        const char *p = strchr(b64, *s == '+' ? '-' : *s == '/' ? '_' : *s);
        if (!p || !*s) {
            sl_buf_free(&b);
            return NULL;
        }
        v = (v << 6) | (unsigned)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            sl_buf_putc(&b, (char)((v >> bits) & 0xff));
        }
    }
    return sl_buf_steal(&b);
}

static char *make_continue(int64_t rv, json_t *last)
{
    json_t *t = json_pack("{s:s, s:I, s:s, s:s}", "v", "meta.k8s.io/v1", "rv", (json_int_t)rv,
                          "ns", sl_kube_namespace(last) ? sl_kube_namespace(last) : "", "name",
                          sl_kube_name(last) ? sl_kube_name(last) : "");
    char *s = json_dumps(t, JSON_COMPACT);
    json_decref(t);
    char *out = b64_encode(s);
    free(s);
    return out;
}

/* 1 when obj sorts after the token's (ns, name). */
static bool after_key(json_t *obj, const char *ns, const char *name)
{
    const char *ons = sl_kube_namespace(obj) ? sl_kube_namespace(obj) : "";
    int c = strcmp(ons, ns);
    if (c)
        return c > 0;
    return strcmp(sl_kube_name(obj) ? sl_kube_name(obj) : "", name) > 0;
}

typedef struct splice {
    sl_buf_t items;
    size_t n;
} splice_t;

static int splice_one(void *arg, const char *json, size_t len)
{
    splice_t *s = arg;
    if (s->n++)
        sl_buf_putc(&s->items, ',');
    sl_buf_append(&s->items, json, len);
    return 0;
}

static enum MHD_Result list_spliced(api_req_t *r, const api_resource_t *res, const char *ns)
{
    splice_t s = {SL_BUF_INIT, 0};
    int64_t rv = 0;
    if (sl_store_list_each(r->api->store, res->store_name, ns, splice_one, &s, &rv) < 0) {
        sl_buf_free(&s.items);
        return api_reply_status(r, sl_kube_status_internal(strerror(errno)));
    }
    char gv[128];
    sl_buf_t out = SL_BUF_INIT;
    sl_buf_printf(&out,
                  "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
                  "\"%lld\"},\"items\":[",
                  res->list_kind, api_resource_api_version(res, gv, sizeof(gv)), (long long)rv);
    if (s.items.len)
        sl_buf_append(&out, s.items.data, s.items.len);
    sl_buf_puts(&out, "]}\n");
    sl_buf_free(&s.items);
    size_t len = out.len;
    return api_reply_owned(r, 200, "application/json", sl_buf_steal(&out), len);
}

enum MHD_Result api_handle_list(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    sl_kube_selector_t *ls = NULL, *fs = NULL;
    json_t *st = NULL, *all = NULL, *items = NULL;
    char *cont = NULL;
    int table = api_wants_table(r);
    if (table < 0)
        return api_reply_status(r, sl_kube_status_not_acceptable(
                                       "only the following media types are accepted: "
                                       "application/json, application/yaml"));
    if (api_parse_selectors(r, res, &ls, &fs, &st) < 0)
        return api_reply_status(r, st);
    long limit = 0;
    const char *ls_text = api_query(r, "limit");
    if (ls_text && *ls_text) {
        char *end;
        limit = strtol(ls_text, &end, 10);
        if (*end || limit < 0)
            limit = 0;
    }
    const char *ctok = api_query(r, "continue");
    char cns[256] = "", cname[256] = "";
    bool has_cont = ctok && *ctok;
    if (has_cont) {
        char *dec = b64_decode(ctok);
        json_t *t = dec ? json_loads(dec, 0, NULL) : NULL;
        free(dec);
        const char *tn = json_string_value(json_object_get(t, "ns"));
        const char *tm = json_string_value(json_object_get(t, "name"));
        if (!tn || !tm) {
            json_decref(t);
            st = sl_kube_status_bad_request("continue key is not valid: incorrect encoded start "
                                            "resourceVersion (version meta.k8s.io/v1)");
            goto fail;
        }
        snprintf(cns, sizeof(cns), "%s", tn);
        snprintf(cname, sizeof(cname), "%s", tm);
        json_decref(t);
    }
    const char *ns = res->namespaced ? p->ns : NULL;
    bool plain = sl_kube_selector_empty(ls) && sl_kube_selector_empty(fs) && !table && !has_cont;
    if (plain && (limit == 0 || sl_store_count(r->api->store, res->store_name, ns) <= limit)) {
        sl_kube_selector_destroy(ls);
        sl_kube_selector_destroy(fs);
        return list_spliced(r, res, ns);
    }
    int64_t rv = 0;
    const char *exact = sl_kube_selector_exact(fs, "metadata.name");
    const char *exact_ns = sl_kube_selector_exact(fs, "metadata.namespace");
    if (exact && (ns || exact_ns || !res->namespaced)) {
        /* kubectl wait/delete: fieldSelector=metadata.name=p → one lookup */
        all = json_array();
        rv = sl_store_revision(r->api->store);
        json_t *o = sl_store_get(r->api->store, res->store_name, ns ? ns : exact_ns, exact);
        if (o)
            json_array_append_new(all, o);
    } else {
        all = sl_store_list(r->api->store, res->store_name, ns, &rv);
        if (!all) {
            st = sl_kube_status_internal(strerror(errno));
            goto fail;
        }
    }
    items = json_array();
    size_t i, remaining = 0;
    json_t *o;
    json_array_foreach(all, i, o)
    {
        if (has_cont && !after_key(o, cns, cname))
            continue;
        if (!sl_kube_selector_match(ls, o) || !sl_kube_selector_match(fs, o))
            continue;
        if (limit > 0 && (long)json_array_size(items) >= limit) {
            remaining++;
            continue;
        }
        json_array_append(items, o);
    }
    if (remaining)
        cont = make_continue(rv, json_array_get(items, json_array_size(items) - 1));
    char rvs[32];
    snprintf(rvs, sizeof(rvs), "%lld", (long long)rv);
    json_t *out;
    if (table > 0) {
        out = api_table(res, items, rvs, table, api_include_object(r), true);
        if (cont)
            json_object_set_new(json_object_get(out, "metadata"), "continue", json_string(cont));
    } else {
        char gv[128];
        json_t *meta = json_pack("{s:s}", "resourceVersion", rvs);
        if (cont) {
            json_object_set_new(meta, "continue", json_string(cont));
            json_object_set_new(meta, "remainingItemCount", json_integer((json_int_t)remaining));
        }
        out = json_pack("{s:s, s:s, s:o, s:O}", "kind", res->list_kind, "apiVersion",
                        api_resource_api_version(res, gv, sizeof(gv)), "metadata", meta, "items",
                        items);
    }
    free(cont);
    json_decref(items);
    json_decref(all);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    return api_reply_json(r, 200, out);
fail:
    free(cont);
    json_decref(items);
    json_decref(all);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    return api_reply_status(r, st);
}
