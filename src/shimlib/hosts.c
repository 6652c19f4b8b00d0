/* hosts.c — the pod's hosts file on the node (hosts.h). */
#include "shimlib/hosts.h"

#include "common/argv.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "shimlib/nodeinfo.h"
#include "slurmif/slurmif.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int bad(sl_error_t *err, const char *path, const char *what)
{
    errno = EINVAL;
    return sl_errprintf(err, "%s: %s", path, what);
}

/* a name of the file: lower-case letters, digits, '-' and '.', 1 to 253
 * (nothing that could start another field or line) */
static int name_ok(const char *s)
{
    size_t n = strlen(s);
    return n && n <= 253 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") == n;
}

static int ip_ok(const char *s)
{
    unsigned char b[16];
    return inet_pton(AF_INET, s, b) == 1 || inet_pton(AF_INET6, s, b) == 1;
}

static int parse_names(json_t *v, const char *path, char ***out, size_t *n, sl_error_t *err)
{
    char p[128];
    if (!json_is_array(v))
        return bad(err, path, "must be an array of names");
    *out = sl_xcalloc(json_array_size(v) + 1, sizeof(char *));
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        snprintf(p, sizeof(p), "%s[%zu]", path, i);
        if (!json_is_string(e) || !name_ok(json_string_value(e)))
            return bad(err, p, "must be a DNS name (lower-case letters, digits, '-' and '.')");
        (*out)[(*n)++] = sl_xstrdup(json_string_value(e));
    }
    return 0;
}

/* members[i] {rank, names} or aliases[i] {ip, hostnames} */
static int parse_entry(json_t *o, const char *path, int alias, sl_hosts_entry_t *e, sl_error_t *err)
{
    char p[128];
    e->rank = -1;
    if (!json_is_object(o))
        return bad(err, path, "must be an object");
    if (alias) {
        json_t *ip = json_object_get(o, "ip");
        snprintf(p, sizeof(p), "%s.ip", path);
        if (!json_is_string(ip) || !ip_ok(json_string_value(ip)))
            return bad(err, p, "must be an IP address");
        e->ip = sl_xstrdup(json_string_value(ip));
    } else {
        json_t *r = json_object_get(o, "rank");
        snprintf(p, sizeof(p), "%s.rank", path);
        if (!json_is_integer(r) || json_integer_value(r) < 0 || json_integer_value(r) > 1000000)
            return bad(err, p, "must be a rank (an integer from 0)");
        e->rank = (long)json_integer_value(r);
    }
    snprintf(p, sizeof(p), "%s.%s", path, alias ? "hostnames" : "names");
    return parse_names(json_object_get(o, alias ? "hostnames" : "names"), p, &e->names, &e->nnames,
                       err);
}

static int parse_entries(json_t *h, const char *key, int alias, sl_hosts_entry_t **out, size_t *n,
                         sl_error_t *err)
{
    char p[64];
    json_t *a = json_object_get(h, key);
    snprintf(p, sizeof(p), "hosts.%s", key);
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return bad(err, p, "must be an array");
    *out = sl_xcalloc(json_array_size(a) + 1, sizeof(**out));
    size_t i;
    json_t *o;
    json_array_foreach(a, i, o)
    {
        snprintf(p, sizeof(p), "hosts.%s[%zu]", key, i);
        (*n)++;
        if (parse_entry(o, p, alias, &(*out)[i], err) < 0)
            return -1;
    }
    return 0;
}

static int parse_all(json_t *v, sl_hosts_t *h, sl_error_t *err)
{
    json_t *path = json_object_get(v, "path"), *hn = json_object_get(v, "hostname");
    if (!json_is_string(path) || json_string_value(path)[0] != '/' ||
        strlen(json_string_value(path)) != json_string_length(path))
        return bad(err, "hosts.path", "must be an absolute path");
    h->path = sl_xstrdup(json_string_value(path));
    if (!json_is_string(hn) || !name_ok(json_string_value(hn)) || json_string_length(hn) > 63)
        return bad(err, "hosts.hostname", "must be a host name (a DNS-1123 label)");
    h->hostname = sl_xstrdup(json_string_value(hn));
    json_t *names = json_object_get(v, "names");
    if (names && !json_is_null(names) &&
        parse_names(names, "hosts.names", &h->names, &h->nnames, err) < 0)
        return -1;
    if (parse_entries(v, "members", 0, &h->members, &h->nmembers, err) < 0 ||
        parse_entries(v, "aliases", 1, &h->aliases, &h->naliases, err) < 0)
        return -1;
    json_t *svc = json_object_get(v, "services");
    if (svc && !json_is_null(svc)) {
        if (!json_is_string(svc) || json_string_value(svc)[0] != '/' ||
            strlen(json_string_value(svc)) != json_string_length(svc))
            return bad(err, "hosts.services", "must be an absolute path");
        h->services = sl_xstrdup(json_string_value(svc));
    }
    return 0;
}

int sl_hosts_parse(json_t *v, sl_hosts_t **out, sl_error_t *err)
{
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return bad(err, "hosts", "must be an object");
    sl_hosts_t *h = sl_xcalloc(1, sizeof(*h));
    if (parse_all(v, h, err) < 0) {
        sl_hosts_free(h);
        errno = EINVAL;
        return -1;
    }
    *out = h;
    return 0;
}

static void entries_free(sl_hosts_entry_t *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++) {
        free(e[i].ip);
        sl_strv_free(e[i].names);
    }
    free(e);
}

void sl_hosts_free(sl_hosts_t *h)
{
    if (!h)
        return;
    free(h->path);
    free(h->hostname);
    sl_strv_free(h->names);
    entries_free(h->members, h->nmembers);
    entries_free(h->aliases, h->naliases);
    free(h->services);
    entries_free(h->svc, h->nsvc);
    free(h);
}

static void line(sl_buf_t *b, const char *ip, char *const *names, size_t n)
{
    if (!n)
        return;
    sl_buf_puts(b, ip);
    for (size_t i = 0; i < n; i++)
        sl_buf_printf(b, "\t%s", names[i]);
    sl_buf_putc(b, '\n');
}

char *sl_hosts_render(const sl_hosts_t *h, const char *base, const char *own_ip,
                      const char *const *member_ip)
{
    sl_buf_t b = SL_BUF_INIT;
    if (base && *base) {
        sl_buf_puts(&b, base);
        if (base[strlen(base) - 1] != '\n')
            sl_buf_putc(&b, '\n');
    }
    sl_buf_puts(&b, "\n# Kubernetes-managed hosts file (slurmlink-shim): the pod's names.\n");
    line(&b, own_ip, h->names, h->nnames);
    for (size_t i = 0; i < h->nmembers; i++)
        if (member_ip && member_ip[i])
            line(&b, member_ip[i], h->members[i].names, h->members[i].nnames);
    if (h->naliases)
        sl_buf_puts(&b, "\n# Entries added by HostAliases.\n");
    for (size_t i = 0; i < h->naliases; i++)
        line(&b, h->aliases[i].ip, h->aliases[i].names, h->aliases[i].nnames);
    if (h->nsvc)
        sl_buf_puts(&b, "\n# Service names (slurmlink): the ready endpoints' addresses.\n");
    for (size_t i = 0; i < h->nsvc; i++)
        line(&b, h->svc[i].ip, h->svc[i].names, h->svc[i].nnames);
    return sl_buf_steal(&b);
}

const char *sl_hosts_member_node(char *const *nodes, long rank)
{
    size_t n = 0;
    while (nodes && nodes[n])
        n++;
    return n && rank >= 0 ? nodes[(size_t)rank % n] : NULL;
}

/* node's address as this node resolves it: IPv4 first, else IPv6; NULL */
static char *resolve(const char *node)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(node, NULL, &hints, &res) != 0)
        return NULL;
    char buf[INET6_ADDRSTRLEN] = "";
    for (int want = AF_INET; !*buf && want; want = want == AF_INET ? AF_INET6 : 0)
        for (struct addrinfo *a = res; a && !*buf; a = a->ai_next) {
            if (a->ai_family != want)
                continue;
            const void *p =
                want == AF_INET
                    ? (const void *)&((struct sockaddr_in *)(void *)a->ai_addr)->sin_addr
                    : (const void *)&((struct sockaddr_in6 *)(void *)a->ai_addr)->sin6_addr;
            inet_ntop(want, p, buf, sizeof(buf));
        }
    freeaddrinfo(res);
    return *buf ? sl_xstrdup(buf) : NULL;
}

/* member i's address: this node's own for a member here; each node
 * resolved once (several members share a node when the gang is packed) */
static char **member_ips(const sl_hosts_t *h, const char *me, const char *own_ip)
{
    char **ips = sl_xcalloc(h->nmembers + 1, sizeof(char *));
    const char *list = getenv("SLURM_JOB_NODELIST");
    char **nodes = list && *list ? sl_slurm_hostlist_expand(list) : NULL;
    size_t n = 0;
    while (nodes && nodes[n])
        n++;
    char **addr = sl_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < h->nmembers; i++) {
        const char *node = sl_hosts_member_node(nodes, h->members[i].rank);
        size_t k = n ? (size_t)h->members[i].rank % n : 0;
        if (!node) {
            sl_warn("hosts: no node for rank %ld (SLURM_JOB_NODELIST %s)", h->members[i].rank,
                    list ? list : "unset");
            continue;
        }
        if (!addr[k])
            addr[k] = !strcmp(node, me) ? sl_xstrdup(own_ip) : resolve(node);
        if (addr[k])
            ips[i] = sl_xstrdup(addr[k]);
        else
            sl_warn("hosts: node %s (rank %ld) has no address here: %s left out", node,
                    h->members[i].rank,
                    h->members[i].nnames ? h->members[i].names[0] : "(no name)");
    }
    for (size_t k = 0; k < n; k++)
        free(addr[k]);
    free(addr);
    sl_strv_free(nodes);
    return ips;
}

/* the Services' file's identity: "" when it is missing */
static void stamp_of(const char *path, char *out, size_t len)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        snprintf(out, len, "%s", "");
        return;
    }
    snprintf(out, len, "%llu/%lld/%lld.%09ld", (unsigned long long)st.st_ino, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

int sl_hosts_services_load(sl_hosts_t *h, sl_error_t *err)
{
    char stamp[sizeof h->svc_stamp];
    if (!h->services)
        return 0;
    stamp_of(h->services, stamp, sizeof stamp);
    if (!strcmp(stamp, h->svc_stamp))
        return 0;
    sl_hosts_entry_t *e = NULL;
    size_t n = 0;
    if (*stamp) {
        json_error_t je;
        json_t *v = json_load_file(h->services, 0, &je);
        if (!v) { /* being replaced, or gone: the next check reads it */
            errno = EINVAL;
            return sl_errprintf(err, "%s: %s", h->services, je.text);
        }
        int rc = parse_entries(v, "entries", 1, &e, &n, err);
        json_decref(v);
        if (rc < 0) {
            entries_free(e, n);
            return -1;
        }
    }
    entries_free(h->svc, h->nsvc);
    h->svc = e;
    h->nsvc = n;
    snprintf(h->svc_stamp, sizeof h->svc_stamp, "%s", stamp);
    return 1;
}

/* the file's text at this node's addresses (caller frees) */
static char *render_here(const sl_hosts_t *h)
{
    char *me = sl_node_name(), *own = sl_node_ips(0);
    char **ips = member_ips(h, me, own);
    sl_error_t rerr;
    char *base = sl_read_file("/etc/hosts", NULL, &rerr);
    if (!base)
        sl_warn("hosts: the node's /etc/hosts: %s", rerr.text);
    char *text = sl_hosts_render(h, base, own, (const char *const *)ips);
    free(base);
    for (size_t i = 0; i < h->nmembers; i++)
        free(ips[i]);
    free(ips);
    free(me);
    free(own);
    return text;
}

int sl_hosts_write(sl_hosts_t *h, sl_error_t *err)
{
    sl_error_t serr = SL_ERROR_INIT;
    if (sl_hosts_services_load(h, &serr) < 0)
        sl_warn("hosts: the Service names: %s", serr.text);
    char *text = render_here(h);
    int rc = sl_write_file(h->path, text, strlen(text), 0644, err);
    free(text);
    return rc;
}

int sl_hosts_refresh(sl_hosts_t *h, sl_error_t *err)
{
    int changed = sl_hosts_services_load(h, err);
    if (changed <= 0)
        return changed;
    char *text = render_here(h);
    size_t len = strlen(text);
    int fd = open(h->path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    int rc = fd < 0 || pwrite(fd, text, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len) < 0
                 ? sl_errprintf(err, "%s: %s", h->path, strerror(errno))
                 : 1;
    if (fd >= 0)
        close(fd);
    free(text);
    return rc;
}
