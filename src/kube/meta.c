/* meta.c — metadata accessors, RFC 3339 time, kubectl ages, UUIDs, names. */
#include "kube/meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/xalloc.h"

json_t *sl_kube_meta(json_t *obj)
{
    if (!json_is_object(obj))
        return NULL;
    json_t *m = json_object_get(obj, "metadata");
    if (!json_is_object(m)) {
        m = json_object();
        json_object_set_new(obj, "metadata", m);
    }
    return m;
}

const char *sl_kube_meta_str(json_t *obj, const char *field)
{
    json_t *m = json_is_object(obj) ? json_object_get(obj, "metadata") : NULL;
    return json_string_value(json_object_get(m, field));
}

void sl_kube_meta_set_str(json_t *obj, const char *field, const char *value)
{
    json_t *m = sl_kube_meta(obj);
    if (!m)
        return;
    if (value)
        json_object_set_new(m, field, json_string(value));
    else
        json_object_del(m, field);
}

const char *sl_kube_name(json_t *obj) { return sl_kube_meta_str(obj, "name"); }
const char *sl_kube_namespace(json_t *obj) { return sl_kube_meta_str(obj, "namespace"); }
const char *sl_kube_uid(json_t *obj) { return sl_kube_meta_str(obj, "uid"); }

static const char *map_get(json_t *obj, const char *map, const char *key)
{
    json_t *m = json_is_object(obj) ? json_object_get(obj, "metadata") : NULL;
    return json_string_value(json_object_get(json_object_get(m, map), key));
}

static void map_set(json_t *obj, const char *map, const char *key, const char *value)
{
    json_t *m = sl_kube_meta(obj);
    if (!m)
        return;
    json_t *mm = json_object_get(m, map);
    if (!value) {
        json_object_del(mm, key);
        return;
    }
    if (!json_is_object(mm)) {
        mm = json_object();
        json_object_set_new(m, map, mm);
    }
    json_object_set_new(mm, key, json_string(value));
}

const char *sl_kube_label(json_t *obj, const char *key) { return map_get(obj, "labels", key); }
const char *sl_kube_annotation(json_t *obj, const char *key)
{
    return map_get(obj, "annotations", key);
}
void sl_kube_set_label(json_t *obj, const char *key, const char *value)
{
    map_set(obj, "labels", key, value);
}
void sl_kube_set_annotation(json_t *obj, const char *key, const char *value)
{
    map_set(obj, "annotations", key, value);
}

int64_t sl_kube_rv_parse(const char *s)
{
    if (!s || !*s)
        return 0;
    int64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || p - s >= 18)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v > 0 ? v : -1;
}

int64_t sl_kube_rv(json_t *obj)
{
    json_t *m = json_is_object(obj) ? json_object_get(obj, "metadata") : NULL;
    json_t *rv = json_object_get(m, "resourceVersion");
    if (!rv)
        return 0;
    if (!json_is_string(rv))
        return -1;
    return sl_kube_rv_parse(json_string_value(rv));
}

void sl_kube_set_rv(json_t *obj, int64_t rv)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", (long long)rv);
    sl_kube_meta_set_str(obj, "resourceVersion", buf);
}

json_t *sl_kube_path(json_t *obj, const char *dotted)
{
    const char *p = dotted;
    while (obj && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!json_is_object(obj))
            return NULL;
        obj = json_object_getn(obj, p, n);
        p += n + (dot ? 1 : 0);
    }
    return obj;
}

json_t *sl_kube_child(json_t *o, const char *k)
{
    json_t *c = json_object_get(o, k);
    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(o, k, c);
    }
    return c;
}

void sl_kube_default(json_t *o, const char *k, json_t *v)
{
    if (!json_object_get(o, k) || json_is_null(json_object_get(o, k)))
        json_object_set_new(o, k, v);
    else
        json_decref(v);
}

json_t *sl_kube_object_copy(json_t *v)
{
    json_t *o = json_deep_copy(v);
    if (json_is_object(o))
        return o;
    json_decref(o);
    return json_object();
}

const char *sl_kube_path_str(json_t *obj, const char *dotted)
{
    return json_string_value(sl_kube_path(obj, dotted));
}

json_t *sl_kube_condition(json_t *conds, const char *type)
{
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

/* o[k] = v (a string, NULL: absent) unless it is so already: 1 when changed */
static int set_str(json_t *o, const char *k, const char *v)
{
    const char *have = json_string_value(json_object_get(o, k));
    if (v ? have && !strcmp(have, v) : !json_object_get(o, k))
        return 0;
    if (v)
        json_object_set_new(o, k, json_string(v));
    else
        json_object_del(o, k);
    return 1;
}

static int set_generation(json_t *o, long long g)
{
    json_t *have = json_object_get(o, "observedGeneration");
    if (g ? json_is_integer(have) && json_integer_value(have) == g : !have)
        return 0;
    if (g)
        json_object_set_new(o, "observedGeneration", json_integer(g));
    else
        json_object_del(o, "observedGeneration");
    return 1;
}

int sl_kube_set_condition(json_t *st, const sl_kube_cond_t *c, const char *now)
{
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds))
        json_object_set_new(st, "conditions", conds = json_array());
    json_t *cd = sl_kube_condition(conds, c->type);
    char *t = now ? NULL : sl_kube_now_rfc3339();
    int changed = 0;
    if (!cd) { /* metav1.Condition's field order */
        cd = json_pack("{s:s, s:s}", "type", c->type, "status", c->status);
        set_generation(cd, c->observed_generation);
        json_object_set_new(cd, "lastTransitionTime", json_string(now ? now : t));
        json_array_append_new(conds, cd);
        changed = 1;
    } else if (set_str(cd, "status", c->status)) {
        json_object_set_new(cd, "lastTransitionTime", json_string(now ? now : t));
        changed = 1;
    }
    changed |= set_str(cd, "reason", c->reason);
    changed |= set_str(cd, "message", c->message);
    changed |= set_generation(cd, c->observed_generation);
    free(t);
    return changed;
}

bool sl_kube_condition_is(json_t *conds, const char *type, const char *status)
{
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t && s && !strcmp(t, type) && !strcmp(s, status))
            return true;
    }
    return false;
}

bool sl_kube_condition_true(json_t *conds, const char *type)
{
    return sl_kube_condition_is(conds, type, "True");
}

int64_t sl_kube_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

char *sl_kube_rfc3339(int64_t unix_ns, int frac_digits)
{
    int64_t sec = unix_ns / 1000000000LL, frac = unix_ns % 1000000000LL;
    if (frac < 0) {
        frac += 1000000000LL;
        sec -= 1;
    }
    time_t t = (time_t)sec;
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (frac_digits <= 0)
        return sl_xasprintf("%sZ", base);
    if (frac_digits > 9)
        frac_digits = 9;
    for (int i = frac_digits; i < 9; i++)
        frac /= 10;
    return sl_xasprintf("%s.%0*lldZ", base, frac_digits, (long long)frac);
}

char *sl_kube_now_rfc3339(void) { return sl_kube_rfc3339(sl_kube_now_ns(), 0); }

char *sl_kube_now_rfc3339_micro(void) { return sl_kube_rfc3339(sl_kube_now_ns(), 6); }

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

int sl_kube_parse_rfc3339(const char *s, int64_t *unix_ns)
{
    int Y, M, D, h, m, sec;
    const char *p = s;
    if (!s || digits(&p, 4, &Y) || *p++ != '-' || digits(&p, 2, &M) || *p++ != '-' ||
        digits(&p, 2, &D) || (*p != 'T' && *p != 't' && *p != ' ') || !*p++ || digits(&p, 2, &h) ||
        *p++ != ':' || digits(&p, 2, &m) || *p++ != ':' || digits(&p, 2, &sec))
        goto inval;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        goto inval;
    int64_t frac = 0;
    if (*p == '.') {
        p++;
        int n = 0;
        while (*p >= '0' && *p <= '9') {
            if (n < 9) {
                frac = frac * 10 + (*p - '0');
                n++;
            }
            p++;
        }
        if (n == 0)
            goto inval;
        for (; n < 9; n++)
            frac *= 10;
    }
    int off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om;
        if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om))
            goto inval;
        off = sign * (oh * 3600 + om * 60);
    } else {
        goto inval;
    }
    if (*p)
        goto inval;
    struct tm tm = {.tm_year = Y - 1900,
                    .tm_mon = M - 1,
                    .tm_mday = D,
                    .tm_hour = h,
                    .tm_min = m,
                    .tm_sec = sec};
    int64_t t = (int64_t)timegm(&tm) - off;
    *unix_ns = t * 1000000000LL + frac;
    return 0;
inval:
    errno = EINVAL;
    return -1;
}

/* k8s.io/apimachinery/pkg/util/duration.HumanDuration, rule for rule. */
static _Thread_local int64_t *tpl_d; /* NULL: print durations */
static _Thread_local size_t tpl_max, tpl_n;

void sl_kube_durations_begin(int64_t *d, size_t max)
{
    tpl_d = d;
    tpl_max = max;
    tpl_n = 0;
}

size_t sl_kube_durations_end(void)
{
    tpl_d = NULL;
    return tpl_n;
}

char *sl_kube_human_duration(int64_t ns, char *buf, size_t len)
{
    long long seconds = ns / 1000000000LL; /* truncates toward zero, as Go's int() */
    if (seconds < -1) {
        snprintf(buf, len, "<invalid>");
        return buf;
    }
    if (seconds < 0) {
        snprintf(buf, len, "0s");
        return buf;
    }
    if (seconds < 60 * 2) {
        snprintf(buf, len, "%llds", seconds);
        return buf;
    }
    long long minutes = seconds / 60;
    if (minutes < 10) {
        long long s = seconds % 60;
        if (s == 0)
            snprintf(buf, len, "%lldm", minutes);
        else
            snprintf(buf, len, "%lldm%llds", minutes, s);
        return buf;
    }
    if (minutes < 60 * 3) {
        snprintf(buf, len, "%lldm", minutes);
        return buf;
    }
    long long hours = seconds / 3600;
    if (hours < 8) {
        long long mm = minutes % 60;
        if (mm == 0)
            snprintf(buf, len, "%lldh", hours);
        else
            snprintf(buf, len, "%lldh%lldm", hours, mm);
    } else if (hours < 48) {
        snprintf(buf, len, "%lldh", hours);
    } else if (hours < 24 * 8) {
        long long hh = hours % 24;
        if (hh == 0)
            snprintf(buf, len, "%lldd", hours / 24);
        else
            snprintf(buf, len, "%lldd%lldh", hours / 24, hh);
    } else if (hours < 24 * 365 * 2) {
        snprintf(buf, len, "%lldd", hours / 24);
    } else if (hours < 24 * 365 * 8) {
        long long dy = (hours / 24) % 365;
        if (dy == 0)
            snprintf(buf, len, "%lldy", hours / 24 / 365);
        else
            snprintf(buf, len, "%lldy%lldd", hours / 24 / 365, dy);
    } else {
        snprintf(buf, len, "%lldy", hours / 24 / 365);
    }
    return buf;
}

char *sl_kube_age(const char *ts, int64_t now_ns, char *buf, size_t len)
{
    int64_t t;
    if (!ts || sl_kube_parse_rfc3339(ts, &t) < 0) {
        snprintf(buf, len, "<unknown>");
        return buf;
    }
    return sl_kube_since(t, now_ns, buf, len);
}

char *sl_kube_since(int64_t then_ns, int64_t now_ns, char *buf, size_t len)
{
    if (tpl_d) {
        if (tpl_n < tpl_max)
            tpl_d[tpl_n] = now_ns - then_ns;
        tpl_n++;
        snprintf(buf, len, SL_KUBE_DURATION_MARK);
        return buf;
    }
    return sl_kube_human_duration(now_ns - then_ns, buf, len);
}

static void random_bytes(void *p, size_t n)
{
    unsigned char *b = p;
    while (n > 0) {
        ssize_t r = getrandom(b, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            abort(); /* no entropy source at all: nothing sane to do */
        }
        b += r;
        n -= (size_t)r;
    }
}

void sl_kube_uuid4(char out[37])
{
    unsigned char b[16];
    random_bytes(b, sizeof b);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

void sl_kube_rand_suffix(char *out, size_t n)
{
    /* k8s.io/apimachinery/pkg/util/rand: no vowels (no words), no 0/1/3 look-alikes */
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    unsigned char b[64];
    size_t i = 0;
    while (i < n) {
        random_bytes(b, sizeof b);
        for (size_t j = 0; j < sizeof b && i < n; j++) {
            if (b[j] >= 27 * 9) /* 243: reject to keep the draw uniform */
                continue;
            out[i++] = alphabet[b[j] % 27];
        }
    }
    out[n] = '\0';
}

static bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

static bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

bool sl_kube_match_dns1123_label(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

bool sl_kube_match_dns1123_subdomain(const char *s)
{
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        if (!sl_kube_match_dns1123_label(s, n))
            return false;
        if (!dot)
            return true;
        s = dot + 1;
    }
}

bool sl_kube_match_qname(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

bool sl_kube_is_dns1123_label(const char *s)
{
    return s && strlen(s) <= 63 && sl_kube_match_dns1123_label(s, strlen(s));
}

bool sl_kube_is_dns1123_subdomain(const char *s)
{
    return s && strlen(s) <= 253 && sl_kube_match_dns1123_subdomain(s);
}

/* A refused label key or value: kube-apiserver's text, kind Invalid. */
static bool refuse(sl_error_t *err, const char *why)
{
    sl_errkindf(err, SL_ERR_INVALID, "%s", why);
    return false;
}

bool sl_kube_is_label_key(const char *s, sl_error_t *err)
{
    const char *slash = strchr(s, '/');
    const char *name = s;
    if (slash) {
        if (strchr(slash + 1, '/'))
            return refuse(err, "a qualified name " SL_KUBE_QNAME_MSG);
        char *prefix = sl_xstrndup(s, (size_t)(slash - s));
        bool pok = *prefix && sl_kube_is_dns1123_subdomain(prefix);
        bool empty = !*prefix;
        free(prefix);
        if (empty)
            return refuse(err, "prefix part must be non-empty");
        if (!pok)
            return refuse(err, "prefix part " SL_KUBE_SUBDOMAIN_MSG);
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0)
        return refuse(err, "name part must be non-empty");
    if (n > 63)
        return refuse(err, "name part must be no more than 63 characters");
    if (!sl_kube_match_qname(name, n))
        return refuse(err, "name part " SL_KUBE_QNAME_MSG);
    return true;
}

bool sl_kube_is_label_value(const char *s, sl_error_t *err)
{
    size_t n = strlen(s);
    if (n > 63)
        return refuse(err, "must be no more than 63 characters");
    if (n > 0 && !sl_kube_match_qname(s, n))
        return refuse(err, SL_KUBE_LABEL_VALUE_MSG);
    return true;
}

void sl_kube_node_set_unschedulable(json_t *node, bool on)
{
    json_t *spec = json_object_get(node, "spec");
    if (!json_is_object(spec))
        json_object_set_new(node, "spec", spec = json_object());
    json_object_set_new(spec, "unschedulable", json_boolean(on));
    json_t *old = json_object_get(spec, "taints"), *taints = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(old, i, t)
    {
        const char *key = json_string_value(json_object_get(t, "key"));
        if (!key || strcmp(key, SL_KUBE_TAINT_UNSCHEDULABLE) != 0)
            json_array_append(taints, t);
    }
    if (on)
        json_array_append_new(taints, json_pack("{s:s, s:s}", "key", SL_KUBE_TAINT_UNSCHEDULABLE,
                                                "effect", "NoSchedule"));
    if (json_array_size(taints))
        json_object_set_new(spec, "taints", taints);
    else {
        json_decref(taints);
        json_object_del(spec, "taints");
    }
}
