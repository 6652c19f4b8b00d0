/* list.c — GET on a collection: label and field selectors, limit and
 * continue, JSON lists or Tables.
 *
 * Paging: `limit` is honoured with a continue token that holds the position
 * in the (namespace, name) order; a page parses only what it returns (plus
 * what selectors reject). Later pages read the current state (as
 * kube-apiserver does once a snapshot has expired), so a page may show
 * changes made after the first one, and an object created or deleted
 * meanwhile may shift the position by one. remainingItemCount is given
 * without selectors only, as in kube-apiserver. Without selectors or paging
 * a JSON list splices the stored texts without parsing them. */
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

static char *make_continue(int64_t rv, size_t index)
{
    json_t *t = json_pack("{s:s, s:I, s:I}", "v", "meta.k8s.io/v1", "rv", (json_int_t)rv, "i",
                          (json_int_t)index);
    char *s = json_dumps(t, JSON_COMPACT);
    json_decref(t);
    char *out = b64_encode(s);
    free(s);
    return out;
}

/* Streaming list: each stored object is parsed, filtered, turned into its
 * item (the stored text itself) or Table row, and freed at once, so a list
 * of 10,000 pods never holds 10,000 parsed objects. */
typedef struct lister {
    api_req_t *r;
    const api_resource_t *res;
    sl_kube_selector_t *ls, *fs;
    const sl_auth_user_t *reader; /* show only what this user may get; NULL: all */
    size_t skip, raw;             /* objects before the page (not parsed), objects seen */
    long limit;
    size_t n;
    bool more;        /* the page is full and something follows */
    int table, include;
    long long now;
    sl_buf_t items;
} lister_t;

static int list_one(void *arg, const char *text, size_t len)
{
    lister_t *L = arg;
    if (L->raw++ < L->skip)
        return 0; /* an earlier page's */
    if (L->limit > 0 && (long)L->n >= L->limit) {
        L->more = true; /* stop here: the next page starts with this one */
        errno = 0;
        return -1;
    }
    json_t *o = json_loadb(text, len, 0, NULL);
    if (!o)
        return 0; /* the store only holds valid JSON; skip rather than fail */
    if (!sl_kube_selector_match(L->ls, o) || !sl_kube_selector_match(L->fs, o) ||
        !api_may_read(L->r->api, L->reader, L->res, o)) {
        json_decref(o);
        return 0;
    }
    if (L->n++)
        sl_buf_putc(&L->items, ',');
    if (L->table > 0) {
        json_t *row = api_table_row(L->res, o, L->include, L->now);
        if (L->table == 2 && L->include == 1)
            json_object_set_new(json_object_get(row, "object"), "apiVersion",
                                json_string("meta.k8s.io/v1beta1"));
        char *rt = json_dumps(row, JSON_COMPACT);
        json_decref(row);
        if (rt)
            sl_buf_puts(&L->items, rt);
        free(rt);
    } else {
        sl_buf_append(&L->items, text, len);
    }
    json_decref(o);
    return 0;
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
    json_t *st = NULL;
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
    bool has_cont = ctok && *ctok;
    json_int_t skip = 0;
    if (has_cont) {
        char *dec = b64_decode(ctok);
        json_t *t = dec ? json_loads(dec, 0, NULL) : NULL;
        free(dec);
        json_t *ji = json_object_get(t, "i");
        bool valid = json_is_integer(ji);
        skip = json_integer_value(ji);
        json_decref(t);
        if (!valid || skip < 0) {
            st = sl_kube_status_bad_request("continue key is not valid: incorrect encoded start "
                                            "resourceVersion (version meta.k8s.io/v1)");
            goto fail;
        }
    }
    const char *ns = res->namespaced ? p->ns : NULL;
    const sl_auth_user_t *reader = api_list_filter(r, res);
    bool plain =
        sl_kube_selector_empty(ls) && sl_kube_selector_empty(fs) && !table && !has_cont && !reader;
    if (plain && (limit == 0 || sl_store_count(r->api->store, res->store_name, ns) <= limit)) {
        sl_kube_selector_destroy(ls);
        sl_kube_selector_destroy(fs);
        return list_spliced(r, res, ns);
    }
    lister_t L = {.r = r,
                  .res = res,
                  .ls = ls,
                  .fs = fs,
                  .reader = reader,
                  .skip = (size_t)skip,
                  .limit = limit,
                  .table = table,
                  .include = api_include_object(r),
                  .now = sl_kube_now_ns(),
                  .items = SL_BUF_INIT};
    int64_t rv = sl_store_revision(r->api->store); /* a paged list stops early */
    const char *exact = sl_kube_selector_exact(fs, "metadata.name");
    const char *exact_ns = sl_kube_selector_exact(fs, "metadata.namespace");
    if (exact && (ns || exact_ns || !res->namespaced)) {
        /* kubectl wait/delete: fieldSelector=metadata.name=p → one lookup */
        rv = sl_store_revision(r->api->store);
        json_t *o = sl_store_get(r->api->store, res->store_name, ns ? ns : exact_ns, exact);
        if (o) {
            char *text = json_dumps(o, JSON_COMPACT);
            json_decref(o);
            if (text)
                list_one(&L, text, strlen(text));
            free(text);
        }
    } else if (sl_store_list_each(r->api->store, res->store_name, ns, list_one, &L, &rv) < 0 &&
               !L.more) {
        sl_buf_free(&L.items);
        st = sl_kube_status_internal(strerror(errno));
        goto fail;
    }
    size_t remaining = 0;
    /* (a filtered list gives no count: it would tell how many others hold) */
    bool selectors = !sl_kube_selector_empty(ls) || !sl_kube_selector_empty(fs) || reader;
    if (L.more) {
        cont = make_continue(rv, L.raw - 1);
        long total = sl_store_count(r->api->store, res->store_name, ns);
        if (total > (long)(L.raw - 1))
            remaining = (size_t)(total - (long)(L.raw - 1));
    }
    char gv[128];
    sl_buf_t out = SL_BUF_INIT;
    if (table > 0) {
        json_t *cols = res->ops && res->ops->table_columns ? res->ops->table_columns() : NULL;
        char *ctext = cols ? json_dumps(cols, JSON_COMPACT) : NULL;
        json_decref(cols);
        sl_buf_printf(&out,
                      "{\"kind\":\"Table\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
                      "\"%lld\"",
                      table == 2 ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1", (long long)rv);
        if (cont)
            sl_buf_printf(&out, ",\"continue\":\"%s\"", cont);
        sl_buf_printf(&out, "},\"columnDefinitions\":%s,\"rows\":[", ctext ? ctext : "[]");
        free(ctext);
    } else {
        sl_buf_printf(&out, "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":\"%lld\"",
                      res->list_kind, api_resource_api_version(res, gv, sizeof(gv)), (long long)rv);
        if (cont)
            sl_buf_printf(&out, ",\"continue\":\"%s\"", cont);
        if (cont && !selectors)
            sl_buf_printf(&out, ",\"remainingItemCount\":%zu", remaining);
        sl_buf_puts(&out, "},\"items\":[");
    }
    if (L.items.len)
        sl_buf_append(&out, L.items.data, L.items.len);
    sl_buf_puts(&out, "]}\n");
    sl_buf_free(&L.items);
    free(cont);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    size_t olen = out.len;
    return api_reply_owned(r, 200, "application/json", sl_buf_steal(&out), olen);
fail:
    free(cont);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    return api_reply_status(r, st);
}
