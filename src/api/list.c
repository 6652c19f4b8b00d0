/* list.c — GET on a collection: label and field selectors, limit and
 * continue, resourceVersion and resourceVersionMatch, JSON lists or Tables.
 *
 * Paging is consistent, as in kube-apiserver: the continue token holds the
 * revision of the first page and the key of the last object looked at;
 * every later page is served as of that revision (sl_store_list_at, built
 * from the change log), so a paginated list shows exactly the objects of
 * the first page's revision, each once, whatever changed between pages.
 * Once the change log no longer reaches back to that revision (it keeps
 * the last 10,000 changes), a later page is 410 Expired with kube's text
 * and a token for the rest as of the latest revision (an inconsistent
 * continuation). resourceVersion=N with resourceVersionMatch=Exact (or a
 * bare N on a first page with a limit) lists as of N the same way;
 * NotOlderThan (or a bare N) lists the current state. An N above the
 * current revision waits up to 3 s for it, then is 504 (kube's
 * ResourceVersionTooLarge). remainingItemCount is given without selectors
 * only, as in kube-apiserver. Without selectors or paging a JSON list
 * splices the stored texts without parsing them. */
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/http/table.h"
#include "api/internal.h"
#include "api/rowcache.h"
#include "common/b64.h"
#include "common/buf.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/selector.h"
#include "kube/status.h"
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int api_parse_selectors(api_req_t *r, const api_resource_t *res, sl_kube_selector_t **ls,
                        sl_kube_selector_t **fs, sl_error_t *err)
{
    *fs = NULL;
    *ls = sl_kube_label_selector_parse(api_query(r, "labelSelector"), err);
    if (*ls)
        *fs = sl_kube_field_selector_parse(api_query(r, "fieldSelector"), res->name, err);
    if (*ls && *fs)
        return 0;
    sl_kube_selector_destroy(*ls);
    *ls = NULL;
    if (err) /* kube answers a bad selector with 400, its requirement errors in the text */
        err->kind = SL_ERR_BAD_REQUEST;
    return -1;
}

/* --- continue tokens: base64url(JSON {"v","rv","ns","name"}) --- */

/* {"v","rv","start"} as kube-apiserver's tokens: start is the key after
 * which the next page begins ("ns/name" and a NUL), rv the revision the
 * list is served as of (-1: the latest, an inconsistent continuation). */
static char *make_continue(int64_t rv, const char *ns, const char *name)
{
    char *start = sl_xasprintf("%s/%s", ns ? ns : "", name ? name : "");
    size_t n = strlen(start);
    json_t *t = json_pack("{s:s, s:I, s:s%}", "v", "meta.k8s.io/v1", "rv", (json_int_t)rv, "start",
                          start, n + 1);
    free(start);
    char *s = json_dumps(t, JSON_COMPACT);
    json_decref(t);
    char *out = sl_b64url_encode(s, strlen(s));
    free(s);
    return out;
}

typedef enum { RV_LATEST, RV_NOT_OLDER, RV_EXACT } rv_mode_t;

typedef struct list_opts {
    long limit;
    bool has_cont;
    char *start_ns, *start_name; /* continue: the page starts after this key */
    rv_mode_t mode;
    int64_t rv; /* RV_NOT_OLDER / RV_EXACT: the revision asked for; continue: the token's */
} list_opts_t;

static void opts_free(list_opts_t *o)
{
    free(o->start_ns);
    free(o->start_name);
}

/* The token's key and revision into o: 0, or -1 with kube's 400 in err. */
static int decode_continue(const char *tok, list_opts_t *o, sl_error_t *err)
{
    char *dec = sl_b64url_decode(tok, NULL);
    json_t *t = dec ? json_loadb(dec, strlen(dec), JSON_ALLOW_NUL, NULL) : NULL;
    free(dec);
    json_t *jrv = json_object_get(t, "rv");
    const char *start = json_string_value(json_object_get(t, "start"));
    json_int_t rv = json_integer_value(jrv);
    const char *slash = start ? strchr(start, '/') : NULL;
    if (!json_is_integer(jrv) || rv == 0 || rv < -1 || !slash) {
        json_decref(t);
        return sl_errkindf(err, SL_ERR_BAD_REQUEST,
                           "continue key is not valid: incorrect encoded start resourceVersion "
                           "(version meta.k8s.io/v1)");
    }
    o->start_ns = sl_xstrndup(start, (size_t)(slash - start));
    o->start_name = sl_xstrdup(slash + 1);
    o->rv = rv;
    json_decref(t);
    return 0;
}

/* kube's ValidateListOptions: 0, or -1 with the field errors of the 422
 * Invalid on ListOptions.meta.k8s.io in err. */
static int validate_rv_match(const char *rv, const char *match, bool has_cont, sl_error_t *err)
{
    static const char *const supported[] = {"Exact", "NotOlderThan", "", NULL};
    if (!rv || !*rv)
        sl_kube_cause_forbidden(err, "resourceVersionMatch",
                                "resourceVersionMatch is forbidden unless resourceVersion is "
                                "provided");
    if (has_cont)
        sl_kube_cause_forbidden(err, "resourceVersionMatch",
                                "resourceVersionMatch is forbidden when continue is provided");
    if (strcmp(match, "Exact") && strcmp(match, "NotOlderThan")) {
        json_t *v = json_string(match);
        sl_kube_cause_not_supported(err, "resourceVersionMatch", v, supported);
        json_decref(v);
    }
    if (!strcmp(match, "Exact") && rv && !strcmp(rv, "0"))
        sl_kube_cause_forbidden(err, "resourceVersionMatch",
                                "resourceVersionMatch \"exact\" is forbidden for resourceVersion "
                                "\"0\"");
    return sl_err_nfields(err) ? -1 : 0;
}

/* limit, continue, resourceVersion and resourceVersionMatch, with kube's
 * semantics (the table "Semantics for get and list" of the API concepts):
 * 0, or -1 with a 400, or the 422 of ListOptions.meta.k8s.io, in err. */
static int parse_list_opts(api_req_t *r, list_opts_t *o, sl_error_t *err)
{
    memset(o, 0, sizeof(*o));
    const char *ls_text = api_query(r, "limit");
    if (ls_text && *ls_text) {
        char *end;
        o->limit = strtol(ls_text, &end, 10);
        if (*end || o->limit < 0)
            o->limit = 0;
    }
    const char *ctok = api_query(r, "continue");
    o->has_cont = ctok && *ctok;
    const char *rv = api_query(r, "resourceVersion");
    const char *match = api_query(r, "resourceVersionMatch");
    if (match && *match && validate_rv_match(rv, match, o->has_cont, err) < 0)
        return -1;
    if (o->has_cont) {
        if (rv && *rv && strcmp(rv, "0"))
            return sl_errkindf(err, SL_ERR_BAD_REQUEST,
                               "specifying resource version is not allowed when using continue");
        return decode_continue(ctok, o, err);
    }
    if (!rv || !*rv || !strcmp(rv, "0"))
        return 0; /* the latest ("0": any, and the latest is one) */
    o->rv = sl_kube_rv_parse(rv);
    if (o->rv < 0)
        return sl_errkindf(err, SL_ERR_BAD_REQUEST, "invalid resource version: %s", rv);
    /* a bare resourceVersion: NotOlderThan, or Exact for a first page */
    bool exact = match && *match ? !strcmp(match, "Exact") : o->limit > 0;
    o->mode = exact ? RV_EXACT : RV_NOT_OLDER;
    return 0;
}

/* A revision above the current one: wait for it up to 3 s (kube's watch
 * cache does); 0, or -1 with a 504 Timeout in err, kube's
 * ResourceVersionTooLarge cause and a retry after 1 s. */
static int wait_for_rv(api_req_t *r, int64_t want, sl_error_t *err)
{
    int64_t cur = sl_store_revision(r->api->store);
    long long until = sl_now_ms() + 3000;
    while (cur < want && !sl_store_shutting_down(r->api->store)) {
        long long left = until - sl_now_ms();
        if (left <= 0)
            break;
        cur = sl_store_wait(r->api->store, cur, (int)left);
    }
    if (cur >= want)
        return 0;
    sl_errkindf(err, SL_ERR_TIMEOUT, "Too large resource version: %lld, current: %lld",
                (long long)want, (long long)cur);
    err->retry_after = 1;
    sl_err_cause(err, "ResourceVersionTooLarge", NULL, "Too large resource version");
    return -1;
}

static const char expired_list[] = "The resourceVersion for the provided list is too old.";
static const char inconsistent_continue[] =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";

/* 410 Expired in err, with kube's text for a list or a continuation. */
static int expired(const list_opts_t *o, sl_error_t *err)
{
    return sl_errkindf(err, SL_ERR_EXPIRED, "%s",
                       o->has_cont ? inconsistent_continue : expired_list);
}

/* The edge of a list's 410 for a too old continue token: one for the rest
 * at the latest revision in metadata.continue, as kube-apiserver answers. */
static void add_continue(json_t *st, const list_opts_t *o)
{
    char *tok = make_continue(-1, o->start_ns, o->start_name);
    json_object_set_new(st, "metadata", json_pack("{s:s}", "continue", tok));
    free(tok);
}

/* Streaming list: each stored object is parsed, filtered, turned into its
 * item (the stored text itself) or Table row, and freed at once, so a list
 * of 10,000 pods never holds 10,000 parsed objects. It stops at the first
 * object after a full page; remainingItemCount is a count query. */
typedef struct lister {
    api_req_t *r;
    const api_resource_t *res;
    sl_kube_selector_t *ls, *fs;
    const sl_auth_user_t *reader; /* show only what this user may get; NULL: all */
    bool selectors;
    long limit;
    size_t n, seen, after;     /* items in the page; objects looked at; objects after */
    char *last_ns, *last_name; /* the last object looked at: the next page starts after it */
    bool more;                 /* the page is full and something follows */
    int table, include;
    long long now;
    sl_buf_t items;
} lister_t;

static void put_buf(void *out, const char *text, size_t len) { sl_buf_append(out, text, len); }

static char *row_text(lister_t *L, json_t *o)
{
    json_t *row = api_table_row(L->res, o, L->include, L->now);
    if (L->table == 2 && L->include == 1)
        json_object_set_new(json_object_get(row, "object"), "apiVersion",
                            json_string("meta.k8s.io/v1beta1"));
    char *rt = json_dumps(row, JSON_COMPACT);
    json_decref(row);
    return rt;
}

/* The object's Table row into the page. An unfiltered list prints it as a
 * template (its durations marked) and keeps it for reuse (rowcache.h). */
static void lister_row(lister_t *L, json_t *o, int64_t rv)
{
    int64_t d[API_ROWCACHE_MAX_DURATIONS];
    size_t nd = 0;
    bool tpl = !L->selectors && rv > 0;
    if (tpl)
        sl_kube_durations_begin(d, API_ROWCACHE_MAX_DURATIONS);
    char *rt = row_text(L, o);
    if (tpl)
        nd = sl_kube_durations_end();
    size_t len = rt ? strlen(rt) : 0;
    size_t mark = L->items.len;
    if (rt && tpl && api_rowcache_render(rt, len, d, nd, 0, put_buf, &L->items) == 0) {
        api_rowcache_add(L->r->api->rows, L->res, rv, L->table * 4 + L->include, L->now, d, nd, rt,
                         len);
    } else if (rt && tpl) { /* the object's own text holds a mark: print it plainly */
        L->items.len = mark;
        free(rt);
        rt = row_text(L, o);
        if (rt)
            sl_buf_puts(&L->items, rt);
    } else if (rt) {
        sl_buf_append(&L->items, rt, len);
    }
    free(rt);
}

static void lister_item(lister_t *L, json_t *o, const char *text, size_t len, int64_t rv)
{
    if (L->n++)
        sl_buf_putc(&L->items, ',');
    if (L->table > 0)
        lister_row(L, o, rv);
    else
        sl_buf_append(&L->items, text, len);
}

static void lister_key(lister_t *L, const char *ns, const char *name)
{
    free(L->last_ns);
    free(L->last_name);
    L->last_ns = sl_xstrdup(ns ? ns : "");
    L->last_name = sl_xstrdup(name ? name : "");
}

/* An unfiltered Table list: the kept row of this version, if still good. */
static bool lister_reuse(lister_t *L, const sl_store_item_t *it)
{
    if (L->table <= 0 || L->selectors || it->rv <= 0)
        return false;
    size_t mark = L->items.len;
    if (L->n)
        sl_buf_putc(&L->items, ',');
    if (!api_rowcache_get(L->r->api->rows, L->res, it->rv, L->table * 4 + L->include, L->now,
                          put_buf, &L->items)) {
        L->items.len = mark;
        return false;
    }
    L->n++;
    lister_key(L, it->ns, it->name);
    return true;
}

static int list_one(void *arg, const char *text, size_t len, const sl_store_item_t *it)
{
    lister_t *L = arg;
    if (L->limit > 0 && (long)L->n >= L->limit) {
        L->more = true; /* the next page starts with this one */
        errno = 0;
        return -1;
    }
    L->seen++;
    if (lister_reuse(L, it))
        return 0;
    json_t *o = json_loadb(text, len, 0, NULL);
    if (!o)
        return 0; /* the store only holds valid JSON; skip rather than fail */
    lister_key(L, sl_kube_namespace(o), sl_kube_name(o));
    if (sl_kube_selector_match(L->ls, o) && sl_kube_selector_match(L->fs, o) &&
        api_may_read(L->r->api, L->reader, L->res, o))
        lister_item(L, o, text, len, it->rv);
    json_decref(o);
    return 0;
}

typedef struct splice {
    sl_buf_t items;
    size_t n;
} splice_t;

static int splice_one(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    splice_t *s = arg;
    if (s->n++)
        sl_buf_putc(&s->items, ',');
    sl_buf_append(&s->items, json, len);
    return 0;
}

/* head, the items, "]}\n" as the reply, built in the items' own buffer
 * (a list of 100,000 pods is 85 MB: no second copy of it) */
static enum MHD_Result reply_wrapped(api_req_t *r, sl_buf_t *head, sl_buf_t *items)
{
    size_t n = head->len, had = items->len;
    sl_buf_append(items, head->data, n); /* grows it by n */
    memmove(items->data + n, items->data, had);
    memcpy(items->data, head->data, n);
    sl_buf_free(head);
    sl_buf_puts(items, "]}\n");
    size_t len = items->len;
    return api_reply_owned(r, 200, "application/json", sl_buf_steal(items), len);
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
    return reply_wrapped(r, &out, &s.items);
}

/* The page: a List or a Table, with continue and remainingItemCount. */
static enum MHD_Result reply_page(api_req_t *r, lister_t *L, int64_t rv)
{
    const api_resource_t *res = L->res;
    char *cont = L->more ? make_continue(rv, L->last_ns, L->last_name) : NULL;
    char gv[128];
    sl_buf_t out = SL_BUF_INIT;
    if (L->table > 0) {
        json_t *cols = res->ops && res->ops->table_columns ? res->ops->table_columns() : NULL;
        char *ctext = cols ? json_dumps(cols, JSON_COMPACT) : NULL;
        json_decref(cols);
        sl_buf_printf(&out,
                      "{\"kind\":\"Table\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
                      "\"%lld\"",
                      L->table == 2 ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1", (long long)rv);
        if (cont)
            sl_buf_printf(&out, ",\"continue\":\"%s\"", cont);
        sl_buf_printf(&out, "},\"columnDefinitions\":%s,\"rows\":[", ctext ? ctext : "[]");
        free(ctext);
    } else {
        sl_buf_printf(&out,
                      "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
                      "\"%lld\"",
                      res->list_kind, api_resource_api_version(res, gv, sizeof(gv)), (long long)rv);
        if (cont)
            sl_buf_printf(&out, ",\"continue\":\"%s\"", cont);
        /* (a filtered list gives no count: it would tell how many others hold) */
        if (cont && !L->selectors)
            sl_buf_printf(&out, ",\"remainingItemCount\":%zu", L->after);
        sl_buf_puts(&out, "},\"items\":[");
    }
    free(cont);
    return reply_wrapped(r, &out, &L->items);
}

/* Fill the page: as of revision *rv from the change log (a continuation
 * or an Exact list of the past), or the current state (*rv set). 0, or -1
 * with err. */
static int fill_page(api_req_t *r, lister_t *L, const list_opts_t *o, const char *ns, int64_t *rv,
                     sl_error_t *err)
{
    sl_store_t *store = r->api->store;
    const api_resource_t *res = L->res;
    int64_t cur = sl_store_revision(store);
    bool past = o->has_cont || (o->mode == RV_EXACT && o->rv < cur);
    const char *exact = sl_kube_selector_exact(L->fs, "metadata.name");
    const char *exact_ns = sl_kube_selector_exact(L->fs, "metadata.namespace");
    if (past) {
        /* -1 (an inconsistent continuation), or a forged one from the future */
        *rv = o->has_cont && (o->rv == -1 || o->rv > cur) ? cur : o->rv;
        if (sl_store_list_at(store, res->store_name, ns, *rv, o->start_ns, o->start_name, list_one,
                             L, err) < 0 &&
            !L->more) {
            if (errno == ERANGE)
                return expired(o, err);
            err->kind = SL_ERR_INTERNAL;
            return -1;
        }
        sl_error_t cerr = SL_ERROR_INIT;
        long rest = L->more && !L->selectors ? sl_store_count_at(store, res->store_name, ns, *rv,
                                                                 L->last_ns, L->last_name, &cerr)
                                             : 0;
        L->after = rest > 0 ? (size_t)rest : 0;
    } else if (exact && (ns || exact_ns || !res->namespaced)) {
        /* kubectl wait/delete: fieldSelector=metadata.name=p → one lookup */
        *rv = cur;
        json_t *obj = sl_store_get(store, res->store_name, ns ? ns : exact_ns, exact);
        char *text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
        json_decref(obj);
        sl_store_item_t it = {ns ? ns : exact_ns, exact, 0};
        if (text)
            list_one(L, text, strlen(text), &it);
        free(text);
    } else if (sl_store_list_each(store, res->store_name, ns, list_one, L, rv) < 0 && !L->more) {
        return sl_errkindf(err, SL_ERR_INTERNAL, "%s", strerror(errno));
    } else if (L->more && !L->selectors) { /* stopped at the first of the rest */
        long total = sl_store_count(store, res->store_name, ns);
        L->after = total > (long)L->seen ? (size_t)(total - (long)L->seen) : 0;
    }
    return 0;
}

enum MHD_Result api_handle_list(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    sl_kube_selector_t *ls = NULL, *fs = NULL;
    json_t *st = NULL;
    int table = api_wants_table(r);
    if (table < 0)
        return api_reply_status(
            r, sl_kube_status_not_acceptable("only the following media types are accepted: "
                                             "application/json, application/yaml"));
    list_opts_t o;
    sl_error_t err = SL_ERROR_INIT;
    if (parse_list_opts(r, &o, &err) < 0) {
        opts_free(&o);
        /* a 422 is about the ListOptions, not the listed resource */
        st = sl_kube_status_error(&err, res->name, "meta.k8s.io", "ListOptions", "");
        sl_error_clear(&err);
        return api_reply_status(r, st);
    }
    if (o.mode != RV_LATEST && wait_for_rv(r, o.rv, &err) < 0) {
        opts_free(&o);
        return api_reply_error(r, res, NULL, &err);
    }
    if (api_parse_selectors(r, res, &ls, &fs, &err) < 0) {
        opts_free(&o);
        st = sl_kube_status_error(&err, res->name, res->group, res->kind, NULL);
        sl_error_clear(&err);
        return api_reply_status(r, st);
    }
    const char *ns = res->namespaced ? p->ns : NULL;
    const sl_auth_user_t *reader = api_list_filter(r, res);
    bool selectors = !sl_kube_selector_empty(ls) || !sl_kube_selector_empty(fs) || reader;
    bool now = !o.has_cont && (o.mode != RV_EXACT || o.rv >= sl_store_revision(r->api->store));
    if (!selectors && !table && now &&
        (o.limit == 0 || sl_store_count(r->api->store, res->store_name, ns) <= o.limit)) {
        sl_kube_selector_destroy(ls);
        sl_kube_selector_destroy(fs);
        opts_free(&o);
        return list_spliced(r, res, ns);
    }
    lister_t L = {.r = r,
                  .res = res,
                  .ls = ls,
                  .fs = fs,
                  .reader = reader,
                  .selectors = selectors,
                  .limit = o.limit,
                  .table = table,
                  .include = api_include_object(r),
                  .now = sl_kube_now_ns(),
                  .items = SL_BUF_INIT};
    int64_t rv = 0;
    enum MHD_Result ret;
    if (fill_page(r, &L, &o, ns, &rv, &err) < 0) {
        bool cont = err.kind == SL_ERR_EXPIRED && o.has_cont;
        st = api_error_status(res, NULL, &err);
        if (cont)
            add_continue(st, &o);
        ret = api_reply_status(r, st);
    } else {
        ret = reply_page(r, &L, rv);
    }
    sl_buf_free(&L.items);
    free(L.last_ns);
    free(L.last_name);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    opts_free(&o);
    return ret;
}
