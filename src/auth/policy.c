/* policy.c — the policy file: YAML (libyaml's document API) to a checked,
 * immutable structure. Every error names file:line: field: why. */
#include "auth/internal.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "kube/quantity.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define MAX_FILE (4 * 1024 * 1024)

typedef struct pctx {
    yaml_document_t *doc;
    const char *name;
    sl_error_t *err;
} pctx_t;

static int perr(pctx_t *c, const yaml_node_t *n, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int perr(pctx_t *c, const yaml_node_t *n, const char *field, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return sl_errprintf(c->err, "%s:%lu: %s: %s", c->name,
                        n ? (unsigned long)n->start_mark.line + 1 : 1UL, field, msg);
}

static yaml_node_t *node(pctx_t *c, int id) { return yaml_document_get_node(c->doc, id); }

/* YAML null: absent value, "~" or "null" written plain */
static int is_null(const yaml_node_t *n)
{
    if (!n)
        return 1;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *v = (const char *)n->data.scalar.value;
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* a string scalar without NUL or control characters; NULL after perr */
static const char *str(pctx_t *c, const yaml_node_t *n, const char *field)
{
    if (!n || n->type != YAML_SCALAR_NODE || is_null(n)) {
        perr(c, n, field, "must be a string");
        return NULL;
    }
    const char *v = (const char *)n->data.scalar.value;
    if (strlen(v) != n->data.scalar.length) {
        perr(c, n, field, "holds a NUL character");
        return NULL;
    }
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            perr(c, n, field, "holds a control character");
            return NULL;
        }
    return v;
}

static int boolean(pctx_t *c, const yaml_node_t *n, const char *field, int *out)
{
    const char *v = n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
    if (!strcmp(v, "true"))
        *out = 1;
    else if (!strcmp(v, "false"))
        *out = 0;
    else
        return perr(c, n, field, "must be true or false");
    return 0;
}

/* Iterate a mapping's pairs with string keys, refusing duplicate keys. */
typedef int (*pair_fn)(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v,
                       const char *field, void *arg);

static int each_pair(pctx_t *c, yaml_node_t *map, const char *field, pair_fn fn, void *arg)
{
    if (is_null(map))
        return 0;
    if (map->type != YAML_MAPPING_NODE)
        return perr(c, map, field, "must be a mapping");
    yaml_node_pair_t *start = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
    for (yaml_node_pair_t *pr = start; pr < top; pr++) {
        yaml_node_t *k = node(c, pr->key), *v = node(c, pr->value);
        const char *key = str(c, k, field);
        if (!key)
            return -1;
        for (yaml_node_pair_t *q = start; q < pr; q++) {
            yaml_node_t *k2 = node(c, q->key);
            if (k2 && k2->type == YAML_SCALAR_NODE && !strcmp((char *)k2->data.scalar.value, key))
                return perr(c, k, field, "duplicate key \"%s\"", key);
        }
        char *sub = *field ? sl_xasprintf("%s.%s", field, key) : sl_xstrdup(key);
        int r = fn(c, key, k, v, sub, arg);
        free(sub);
        if (r < 0)
            return -1;
    }
    return 0;
}

static void names_free(az_names_t *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->v[i]);
    free(n->v);
    n->v = NULL;
    n->n = 0;
}

/* a list of non-empty strings (null: empty list) */
static int names(pctx_t *c, yaml_node_t *n, const char *field, az_names_t *out)
{
    if (is_null(n))
        return 0;
    if (n->type != YAML_SEQUENCE_NODE)
        return perr(c, n, field, "must be a list of strings");
    int i = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++, i++) {
        char f[200];
        snprintf(f, sizeof(f), "%s[%d]", field, i);
        yaml_node_t *e = node(c, *it);
        const char *s = str(c, e, f);
        if (!s)
            return -1;
        if (!*s)
            return perr(c, e, f, "must not be empty");
        out->v = sl_xrealloc(out->v, (out->n + 1) * sizeof(char *));
        out->v[out->n++] = sl_xstrdup(s);
    }
    return 0;
}

static void rule_free(az_rule_t *r)
{
    names_free(&r->users);
    names_free(&r->groups);
}

static int rule_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v, const char *field,
                     void *arg)
{
    az_rule_t *r = arg;
    if (!strcmp(key, "users"))
        return names(c, v, field, &r->users);
    if (!strcmp(key, "groups"))
        return names(c, v, field, &r->groups);
    return perr(c, k, field, "unknown field (expected users or groups)");
}

/* DNS-1123 label, as Kubernetes namespace names are */
static int dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!alnum && !(ch == '-' && i > 0 && i < n - 1))
            return 0;
    }
    return 1;
}

/* Slurm account names: lower case (Slurm folds them), digits, '_', '-', '.' */
static int account_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              (i > 0 && (ch == '-' || ch == '.'))))
            return 0;
    }
    return 1;
}

/* POSIX portable user names (useradd's default rule) */
static int unix_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 32 || s[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-' || ch == '.' || (ch == '$' && i == n - 1)))
            return 0;
    }
    return 1;
}

/* defaultQuota: {RESOURCE: QUANTITY}, as a ResourceQuota's spec.hard */
static int quota_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v, const char *field,
                      void *arg)
{
    az_quota_t *q = arg;
    sl_quantity_t qty;
    sl_error_t qerr;
    if (!*key || strlen(key) > 253 ||
        strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-._/") != strlen(key))
        return perr(c, k, field, "\"%s\" is not a resource name", key);
    const char *val = str(c, v, field);
    if (!val)
        return -1;
    if (sl_quantity_parse(val, &qty, &qerr) < 0)
        return perr(c, v, field, "%s", qerr.text);
    if (sl_quantity_sign(&qty) < 0)
        return perr(c, v, field, "must be greater than or equal to 0");
    q->names.v = sl_xrealloc(q->names.v, (q->names.n + 1) * sizeof(char *));
    q->names.v[q->names.n++] = sl_xstrdup(key);
    q->values.v = sl_xrealloc(q->values.v, (q->values.n + 1) * sizeof(char *));
    q->values.v[q->values.n++] = sl_xstrdup(val);
    return 0;
}

static void quota_free(az_quota_t *q)
{
    names_free(&q->names);
    names_free(&q->values);
}

static int ns_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v, const char *field,
                   void *arg)
{
    az_ns_t *ns = arg;
    if (!strcmp(key, "account")) {
        const char *a = str(c, v, field);
        if (!a)
            return -1;
        if (!account_ok(a))
            return perr(c, v, field,
                        "\"%s\" is not a Slurm account name (lower case letters, "
                        "digits, '_', '-', '.')",
                        a);
        ns->account = sl_xstrdup(a);
        return 0;
    }
    if (!strcmp(key, "read"))
        return each_pair(c, v, field, rule_pair, &ns->read);
    if (!strcmp(key, "write"))
        return each_pair(c, v, field, rule_pair, &ns->write);
    if (!strcmp(key, "defaultQuota"))
        return each_pair(c, v, field, quota_pair, &ns->quota);
    return perr(c, k, field, "unknown field (expected account, read, write or defaultQuota)");
}

static int namespaces_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v,
                           const char *field, void *arg)
{
    sl_authz_policy_t *p = arg;
    if (strcmp(key, "*") != 0 && !dns_label(key))
        return perr(c, k, field, "\"%s\" is not a namespace name (a DNS-1123 label) or \"*\"", key);
    p->ns = sl_xrealloc(p->ns, (p->nns + 1) * sizeof(az_ns_t));
    az_ns_t *ns = &p->ns[p->nns++];
    memset(ns, 0, sizeof(*ns));
    ns->name = sl_xstrdup(key);
    return each_pair(c, v, field, ns_pair, ns);
}

static int users_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v, const char *field,
                      void *arg)
{
    sl_authz_policy_t *p = arg;
    if (!*key)
        return perr(c, k, field, "empty user name");
    const char *u = str(c, v, field);
    if (!u)
        return -1;
    if (!unix_name_ok(u))
        return perr(c, v, field, "\"%s\" is not a Unix user name", u);
    p->users = sl_xrealloc(p->users, (p->nusers + 1) * sizeof(az_umap_t));
    p->users[p->nusers].kube = sl_xstrdup(key);
    p->users[p->nusers].unix_name = sl_xstrdup(u);
    p->nusers++;
    return 0;
}

/* nonResourceURLs: {"/metrics": {users: [...], groups: [...]}} */
static int nonres_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v,
                       const char *field, void *arg)
{
    sl_authz_policy_t *p = arg;
    size_t n = strlen(key);
    if (key[0] != '/' || strcspn(key, "*") < n - 1 || strcspn(key, "?#") != n)
        return perr(c, k, field,
                    "\"%s\" is not a URL path (it begins with '/'; a '*' may only end it)", key);
    p->nonres = sl_xrealloc(p->nonres, (p->nnonres + 1) * sizeof(az_nonres_t));
    az_nonres_t *e = &p->nonres[p->nnonres++];
    memset(e, 0, sizeof(*e));
    e->url = sl_xstrdup(key);
    return each_pair(c, v, field, rule_pair, &e->get);
}

typedef struct anon {
    const char *user;
    az_names_t groups;
    int seen_user;
} anon_t;

static int anon_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v, const char *field,
                     void *arg)
{
    anon_t *a = arg;
    if (!strcmp(key, "user")) {
        if (!(a->user = str(c, v, field)))
            return -1;
        if (!*a->user)
            return perr(c, v, field, "must not be empty");
        return 0;
    }
    if (!strcmp(key, "groups"))
        return names(c, v, field, &a->groups);
    return perr(c, k, field, "unknown field (expected user or groups)");
}

static int cluster_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v,
                        const char *field, void *arg)
{
    sl_authz_policy_t *p = arg;
    if (!strcmp(key, "read"))
        return each_pair(c, v, field, rule_pair, &p->cluster_read);
    if (!strcmp(key, "write"))
        return each_pair(c, v, field, rule_pair, &p->cluster_write);
    return perr(c, k, field, "unknown field (expected read or write)");
}

static int top_pair(pctx_t *c, const char *key, yaml_node_t *k, yaml_node_t *v, const char *field,
                    void *arg)
{
    sl_authz_policy_t *p = arg;
    if (!strcmp(key, "apiVersion") || !strcmp(key, "kind")) {
        const char *want = key[0] == 'a' ? "slurmlink.io/v1" : "Policy";
        const char *s = str(c, v, field);
        if (!s)
            return -1;
        if (strcmp(s, want) != 0)
            return perr(c, v, field, "must be \"%s\"", want);
        return 0;
    }
    if (!strcmp(key, "adminGroups"))
        return names(c, v, field, &p->admin_groups);
    if (!strcmp(key, "allowRoot"))
        return boolean(c, v, field, &p->allow_root);
    if (!strcmp(key, "minUid")) {
        const char *s = v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
        char *end;
        errno = 0;
        long n = strtol(s, &end, 10);
        if (!*s || *end || errno || n < 1 || n > 2147483647L)
            return perr(c, v, field, "must be an integer from 1 to 2147483647");
        p->min_uid = n;
        return 0;
    }
    if (!strcmp(key, "anonymous")) {
        if (is_null(v))
            return 0;
        anon_t a = {NULL, {NULL, 0}, 0};
        int r = each_pair(c, v, field, anon_pair, &a);
        if (r == 0 && !a.user)
            r = perr(c, v, field, "needs a user");
        if (r == 0) {
            char **g = sl_xcalloc(a.groups.n + 1, sizeof(char *));
            for (size_t i = 0; i < a.groups.n; i++)
                g[i] = a.groups.v[i];
            p->anonymous = sl_auth_user_create(a.user, "", (const char *const *)g);
            free(g);
        }
        names_free(&a.groups);
        return r;
    }
    if (!strcmp(key, "cluster"))
        return each_pair(c, v, field, cluster_pair, p);
    if (!strcmp(key, "namespaces"))
        return each_pair(c, v, field, namespaces_pair, p);
    if (!strcmp(key, "users"))
        return each_pair(c, v, field, users_pair, p);
    if (!strcmp(key, "defaultQuota"))
        return each_pair(c, v, field, quota_pair, &p->quota);
    if (!strcmp(key, "nonResourceURLs"))
        return each_pair(c, v, field, nonres_pair, p);
    return perr(c, k, field,
                "unknown field (expected apiVersion, kind, adminGroups, allowRoot, minUid, "
                "anonymous, cluster, namespaces, users, defaultQuota, nonResourceURLs)");
}

void sl_authz_policy_destroy(sl_authz_policy_t *p)
{
    if (!p)
        return;
    names_free(&p->admin_groups);
    sl_auth_user_destroy(p->anonymous);
    rule_free(&p->cluster_read);
    rule_free(&p->cluster_write);
    for (size_t i = 0; i < p->nns; i++) {
        free(p->ns[i].name);
        free(p->ns[i].account);
        rule_free(&p->ns[i].read);
        rule_free(&p->ns[i].write);
        quota_free(&p->ns[i].quota);
    }
    quota_free(&p->quota);
    free(p->ns);
    for (size_t i = 0; i < p->nusers; i++) {
        free(p->users[i].kube);
        free(p->users[i].unix_name);
    }
    free(p->users);
    for (size_t i = 0; i < p->nnonres; i++) {
        free(p->nonres[i].url);
        rule_free(&p->nonres[i].get);
    }
    free(p->nonres);
    free(p);
}

sl_authz_policy_t *sl_authz_policy_parse(const char *text, const char *name, sl_error_t *err)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    name = name ? name : "policy";
    if (!yaml_parser_initialize(&parser)) {
        errno = ENOMEM;
        sl_errprintf(err, "%s: cannot initialise the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    if (!yaml_parser_load(&parser, &doc)) {
        errno = EINVAL;
        sl_errprintf(err, "%s:%lu: invalid YAML: %s%s%s", name,
                     (unsigned long)parser.problem_mark.line + 1,
                     parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
                     parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return NULL;
    }
    sl_authz_policy_t *p = sl_xcalloc(1, sizeof(*p));
    p->min_uid = AZ_DEFAULT_MIN_UID;
    pctx_t c = {&doc, name, err};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    int r;
    if (!root)
        r = (errno = EINVAL, sl_errprintf(err, "%s: empty policy (no YAML document)", name));
    else if (root->type != YAML_MAPPING_NODE)
        r = perr(&c, root, "(top level)", "must be a mapping");
    else
        r = each_pair(&c, root, "", top_pair, p);
    if (r == 0) {
        /* a second document is a mistake (two policies pasted together) */
        yaml_document_t more;
        if (!yaml_parser_load(&parser, &more)) {
            r = (errno = EINVAL, sl_errprintf(err, "%s:%lu: invalid YAML: %s", name,
                                              (unsigned long)parser.problem_mark.line + 1,
                                              parser.problem ? parser.problem : "syntax error"));
        } else {
            if (yaml_document_get_root_node(&more))
                r = perr(&c, yaml_document_get_root_node(&more), "(document)",
                         "only one YAML document is allowed");
            yaml_document_delete(&more);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (r < 0) {
        sl_authz_policy_destroy(p);
        return NULL;
    }
    return p;
}

/* The file's text, when it is a trusted regular file (az_file_untrusted). */
static char *read_trusted(const char *path, size_t *len, sl_error_t *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0) {
        sl_errprintf(err, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *text = NULL;
    if (!S_ISREG(sb.st_mode) || sb.st_size > MAX_FILE) {
        errno = EINVAL;
        sl_errprintf(err, "%s: not a text file of at most %d MiB", path, MAX_FILE >> 20);
    } else if (!az_file_untrusted(path, &sb, "policy", err)) {
        sl_buf_t b = SL_BUF_INIT;
        char chunk[8192];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
            if (n > 0)
                sl_buf_append(&b, chunk, (size_t)n);
        *len = b.len;
        text = b.data ? b.data : sl_xstrdup("");
    }
    close(fd);
    return text;
}

sl_authz_policy_t *sl_authz_policy_load(const char *path, sl_error_t *err)
{
    size_t len = 0;
    char *text = read_trusted(path, &len, err);
    if (!text)
        return NULL;
    if (len > MAX_FILE || strlen(text) != len) {
        free(text);
        errno = EINVAL;
        sl_errprintf(err, "%s: not a text file of at most %d MiB", path, MAX_FILE >> 20);
        return NULL;
    }
    sl_authz_policy_t *p = sl_authz_policy_parse(text, path, err);
    free(text);
    return p;
}

int sl_authz_unix_group_ok(const char *name, gid_t primary, gid_t gid)
{
    if (gid == primary)
        return 1;
    int n = 64;
    for (int tries = 0; tries < 4; tries++) {
        gid_t *g = sl_xmalloc((size_t)n * sizeof(gid_t));
        int want = n;
        int rc = getgrouplist(name, primary, g, &want);
        if (rc >= 0) {
            int found = 0;
            for (int i = 0; i < rc && !found; i++)
                found = g[i] == gid;
            free(g);
            return found;
        }
        free(g);
        n = want > n ? want : n * 2;
    }
    return 0;
}
