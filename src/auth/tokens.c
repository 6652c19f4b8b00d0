/* tokens.c — the token file: CSV parsing, constant-time lookup, reload, append. */
#include "auth/tokens.h"
#include "auth/internal.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILE (16 * 1024 * 1024)

typedef struct entry {
    unsigned char digest[32]; /* SHA-256 of the token; the token itself is not kept */
    sl_auth_user_t *user;
    long long expires; /* 0: never */
} entry_t;

typedef struct table {
    entry_t *e;
    size_t n;
} table_t;

struct sl_auth_tokens {
    pthread_mutex_t lock;
    char *path; /* NULL: parsed from text, never reloaded */
    table_t tab;
    int broken;      /* the file became invalid: refuse everything */
    sl_error_t why;  /* ... because of this */
    struct stat sig; /* what the table was read from */
};

static void table_clear(table_t *t)
{
    for (size_t i = 0; i < t->n; i++)
        sl_auth_user_destroy(t->e[i].user);
    free(t->e);
    t->e = NULL;
    t->n = 0;
}

/* ---- CSV ---------------------------------------------------------------- */

typedef struct fields {
    char *f[8];
    int n;
} fields_t;

static void fields_clear(fields_t *fs)
{
    for (int i = 0; i < fs->n; i++)
        free(fs->f[i]);
    fs->n = 0;
}

/* Split one line (without its newline) into fields like encoding/csv with
 * TrimLeadingSpace. Returns 0, or -1 (EINVAL) with the reason in err. */
static int csv_bad(sl_buf_t *b, sl_error_t *err, const char *why)
{
    sl_buf_free(b);
    errno = EINVAL;
    return sl_errprintf(err, "%s", why);
}

static int csv_split(const char *line, fields_t *fs, sl_error_t *err)
{
    const char *p = line;
    fs->n = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        sl_buf_t b = SL_BUF_INIT;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    return csv_bad(&b, err, "unterminated quoted field");
                }
                if (*p == '"' && p[1] == '"') {
                    sl_buf_putc(&b, '"');
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else
                    sl_buf_putc(&b, *p++);
            }
            if (*p != ',' && *p != '\0') {
                return csv_bad(&b, err, "extraneous text after a quoted field");
            }
        } else {
            while (*p && *p != ',') {
                if (*p == '"') {
                    return csv_bad(&b, err, "bare \" in a field that is not quoted");
                }
                sl_buf_putc(&b, *p++);
            }
        }
        if (fs->n == (int)(sizeof(fs->f) / sizeof(fs->f[0]))) {
            return csv_bad(&b, err, "too many columns (at most 5: token,user,uid,groups,expires)");
        }
        fs->f[fs->n++] = sl_buf_steal(&b);
        if (*p != ',')
            return 0;
        p++;
    }
}

static int printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

/* a token travels in an HTTP header: visible ASCII only */
static int token_ok(const char *s)
{
    if (!*s || strlen(s) > 4096)
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f)
            return 0;
    return 1;
}

/* "2027-01-01T00:00:00Z" → seconds; -1 if malformed */
static long long parse_time(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end)
        return -1;
    return (long long)timegm(&tm);
}

static void sha256(const char *s, unsigned char out[32])
{
    gnutls_hash_fast(GNUTLS_DIG_SHA256, s, strlen(s), out);
}

/* one record → entry; -1 with err naming name:lineno */
static int make_entry(fields_t *fs, const char *name, int lineno, entry_t *e, sl_error_t *err)
{
    const char *why = NULL;
    if (fs->n < 3)
        why = "must have at least 3 columns (token, user name, user uid)";
    else if (!*fs->f[0])
        why = "empty token";
    else if (!token_ok(fs->f[0]))
        why = "token must be visible ASCII without spaces (at most 4096 bytes)";
    else if (!*fs->f[1])
        why = "empty user name";
    else if (!printable(fs->f[1]) || !printable(fs->f[2]) || (fs->n > 3 && !printable(fs->f[3])))
        why = "control character in a name";
    if (why) {
        errno = EINVAL;
        return sl_errprintf(err, "%s:%d: %s", name, lineno, why);
    }
    long long expires = 0;
    if (fs->n > 4 && *fs->f[4] && (expires = parse_time(fs->f[4])) < 0) {
        errno = EINVAL;
        return sl_errprintf(err,
                            "%s:%d: expiry \"%.40s\" is not RFC 3339 UTC "
                            "(2027-01-01T00:00:00Z)",
                            name, lineno, fs->f[4]);
    }
    e->user = sl_auth_user_create(fs->f[1], fs->f[2], NULL);
    if (fs->n > 3) {
        /* strings.Split(groups, ","), with spaces around names trimmed */
        char *save = NULL;
        for (char *g = strtok_r(fs->f[3], ",", &save); g; g = strtok_r(NULL, ",", &save)) {
            while (*g == ' ' || *g == '\t')
                g++;
            size_t n = strlen(g);
            while (n && (g[n - 1] == ' ' || g[n - 1] == '\t'))
                g[--n] = '\0';
            sl_auth_user_add_group(e->user, g);
        }
    }
    sha256(fs->f[0], e->digest);
    e->expires = expires;
    return 0;
}

static int parse_into(const char *text, const char *name, table_t *t, sl_error_t *err)
{
    table_t tab = {NULL, 0};
    int *lines = NULL;
    const char *p = text;
    int lineno = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = sl_xstrndup(p, len);
        p += len + (nl ? 1 : 0);
        lineno++;
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '#') {
            free(line);
            continue;
        }
        fields_t fs = {.n = 0};
        entry_t e;
        memset(&e, 0, sizeof(e));
        int r = csv_split(line, &fs, err);
        if (r < 0)
            sl_errprefix(err, "%s:%d", name, lineno);
        else
            r = make_entry(&fs, name, lineno, &e, err);
        if (fs.n > 0)
            explicit_bzero(fs.f[0], strlen(fs.f[0]));
        fields_clear(&fs);
        explicit_bzero(line, len);
        free(line);
        if (r < 0)
            goto fail;
        for (size_t i = 0; i < tab.n; i++)
            if (!memcmp(tab.e[i].digest, e.digest, sizeof(e.digest))) {
                sl_auth_user_destroy(e.user);
                errno = EINVAL;
                sl_errprintf(err, "%s:%d: duplicate token (first on line %d)", name, lineno,
                             lines[i]);
                goto fail;
            }
        tab.e = sl_xrealloc(tab.e, (tab.n + 1) * sizeof(entry_t));
        lines = sl_xrealloc(lines, (tab.n + 1) * sizeof(int));
        lines[tab.n] = lineno;
        tab.e[tab.n++] = e;
    }
    free(lines);
    *t = tab;
    return 0;
fail:
    free(lines);
    table_clear(&tab);
    return -1;
}

/* ---- files --------------------------------------------------------------- */

int az_file_untrusted(const char *path, const struct stat *sb, const char *what, sl_error_t *err)
{
    uid_t me = geteuid();
    if (sb->st_uid != 0 && sb->st_uid != me) {
        errno = EPERM;
        sl_errprintf(err,
                     "%s: owned by uid %u, not by root or slurmlinkd's uid %u: its owner could "
                     "change the %s; chown root it",
                     path, (unsigned)sb->st_uid, (unsigned)me, what);
        return 1;
    }
    if (sb->st_mode & 0022) {
        errno = EPERM;
        sl_errprintf(err, "%s: mode %04o lets group or others change the %s; chmod go-w it", path,
                     (unsigned)(sb->st_mode & 07777), what);
        return 1;
    }
    return 0;
}

/* read path under a shared flock (writers append under an exclusive one) */
static char *read_locked(const char *path, struct stat *sb, sl_error_t *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return sl_errprintf(err, "%s: %s", path, strerror(errno)), NULL;
    char *buf = NULL;
    if (flock(fd, LOCK_SH) < 0 || fstat(fd, sb) < 0) {
        sl_errprintf(err, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(sb->st_mode) || sb->st_size > MAX_FILE) {
        errno = EINVAL;
        sl_errprintf(err, "%s: not a regular file of at most %d MiB", path, MAX_FILE >> 20);
        goto out;
    }
    if (az_file_untrusted(path, sb, "tokens", err)) /* errno EPERM */
        goto out;
    if (sb->st_mode & 0004) {
        errno = EACCES;
        sl_errprintf(err,
                     "%s: mode %04o lets others read or change the tokens; "
                     "chmod 600 it",
                     path, (unsigned)(sb->st_mode & 07777));
        goto out;
    }
    buf = sl_xmalloc((size_t)sb->st_size + 1);
    size_t got = 0;
    while (got < (size_t)sb->st_size) {
        ssize_t n = read(fd, buf + got, (size_t)sb->st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (strlen(buf) != got) {
        free(buf);
        buf = NULL;
        errno = EINVAL;
        sl_errprintf(err, "%s: holds a NUL byte", path);
    }
out:
    close(fd);
    return buf;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static int load_table(const char *path, table_t *tab, struct stat *sb, sl_error_t *err)
{
    char *text = read_locked(path, sb, err);
    if (!text)
        return -1;
    int r = parse_into(text, path, tab, err);
    explicit_bzero(text, strlen(text));
    free(text);
    return r;
}

sl_auth_tokens_t *sl_auth_tokens_parse(const char *text, const char *name, sl_error_t *err)
{
    table_t tab;
    if (parse_into(text ? text : "", name ? name : "tokens", &tab, err) < 0)
        return NULL;
    sl_auth_tokens_t *t = sl_xcalloc(1, sizeof(*t));
    pthread_mutex_init(&t->lock, NULL);
    t->tab = tab;
    return t;
}

sl_auth_tokens_t *sl_auth_tokens_load(const char *path, sl_error_t *err)
{
    table_t tab;
    struct stat sb;
    if (load_table(path, &tab, &sb, err) < 0)
        return NULL;
    sl_auth_tokens_t *t = sl_xcalloc(1, sizeof(*t));
    pthread_mutex_init(&t->lock, NULL);
    t->tab = tab;
    t->path = sl_xstrdup(path);
    t->sig = sb;
    return t;
}

void sl_auth_tokens_destroy(sl_auth_tokens_t *t)
{
    if (!t)
        return;
    table_clear(&t->tab);
    pthread_mutex_destroy(&t->lock);
    free(t->path);
    free(t);
}

/* with t->lock held */
static int refresh_locked(sl_auth_tokens_t *t, sl_error_t *err)
{
    if (!t->path)
        return 0;
    struct stat sb;
    if (stat(t->path, &sb) == 0 && same_file(&sb, &t->sig))
        return t->broken ? sl_errprintf(err, "%s", t->why.text) : 0;
    table_t tab;
    if (load_table(t->path, &tab, &sb, &t->why) < 0) {
        int saved = errno;
        if (saved == EPERM && !t->broken) {
            /* someone else could have written it: read nothing of it and
             * keep the tokens of the last trusted version */
            sl_warn("%s; keeping the %zu tokens read before", t->why.text, t->tab.n);
            sl_errprintf(err, "%s", t->why.text);
            if (stat(t->path, &t->sig) < 0)
                memset(&t->sig, 0, sizeof(t->sig));
            errno = saved;
            return -1;
        }
        sl_errprintf(err, "%s", t->why.text);
        errno = saved;
        /* fail closed: a token removed in the same edit must not live on */
        table_clear(&t->tab);
        t->broken = 1;
        if (stat(t->path, &t->sig) < 0)
            memset(&t->sig, 0, sizeof(t->sig));
        return -1;
    }
    table_clear(&t->tab);
    t->tab = tab;
    t->sig = sb;
    t->broken = 0;
    return 0;
}

int sl_auth_tokens_refresh(sl_auth_tokens_t *t, sl_error_t *err)
{
    pthread_mutex_lock(&t->lock);
    int r = refresh_locked(t, err);
    pthread_mutex_unlock(&t->lock);
    return r;
}

size_t sl_auth_tokens_count(sl_auth_tokens_t *t)
{
    pthread_mutex_lock(&t->lock);
    refresh_locked(t, NULL);
    size_t n = t->tab.n;
    pthread_mutex_unlock(&t->lock);
    return n;
}

sl_auth_user_t *sl_auth_tokens_lookup(sl_auth_tokens_t *t, const char *token, long long now)
{
    if (!t || !token) {
        errno = ENOENT;
        return NULL;
    }
    unsigned char d[32];
    sha256(token, d);
    pthread_mutex_lock(&t->lock);
    if (refresh_locked(t, NULL) < 0 || t->broken) {
        pthread_mutex_unlock(&t->lock);
        errno = EACCES;
        return NULL;
    }
    /* Every entry is compared in full and the loop never exits early, so the
     * time taken depends on the table size only, not on how close the token
     * presented is to a real one. */
    size_t found = 0; /* index + 1 */
    for (size_t i = 0; i < t->tab.n; i++) {
        unsigned diff = 0;
        for (size_t k = 0; k < sizeof(d); k++)
            diff |= (unsigned)(t->tab.e[i].digest[k] ^ d[k]);
        /* mask is all ones when diff == 0, else zero */
        size_t mask = (size_t)0 - (size_t)(((diff | (0u - diff)) >> 31) ^ 1u);
        found |= (i + 1) & mask;
    }
    sl_auth_user_t *u = NULL;
    int e = ENOENT;
    if (found) {
        const entry_t *en = &t->tab.e[found - 1];
        if (!now)
            now = (long long)time(NULL);
        if (en->expires && now >= en->expires)
            e = EKEYEXPIRED;
        else
            u = sl_auth_user_copy(en->user);
    }
    pthread_mutex_unlock(&t->lock);
    if (!u)
        errno = e;
    return u;
}

char *sl_auth_token_generate(void)
{
    unsigned char b[32];
    if (gnutls_rnd(GNUTLS_RND_KEY, b, sizeof(b)) < 0)
        return NULL;
    char *s = sl_xmalloc(2 * sizeof(b) + 1);
    for (size_t i = 0; i < sizeof(b); i++)
        snprintf(s + 2 * i, 3, "%02x", b[i]);
    explicit_bzero(b, sizeof(b));
    return s;
}

/* a CSV field: quoted when it holds ',', '"', leading space or '#' */
static void csv_field(sl_buf_t *b, const char *s)
{
    if (!strpbrk(s, ",\"") && s[0] != ' ' && s[0] != '\t' && s[0] != '#') {
        sl_buf_puts(b, s);
        return;
    }
    sl_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            sl_buf_putc(b, '"');
        sl_buf_putc(b, *s);
    }
    sl_buf_putc(b, '"');
}

/* the fields of a new line: what the file's parser would take back */
static int entry_ok(const char *token, const char *user, const char *uid, const char *const *groups,
                    sl_error_t *err)
{
    errno = EINVAL;
    if (!token || !token_ok(token))
        return sl_errprintf(err, "token must be visible ASCII without spaces");
    if (!user || !*user || !printable(user) || (uid && !printable(uid)))
        return sl_errprintf(err, "user name must be non-empty, without control characters");
    for (size_t i = 0; groups && groups[i]; i++)
        if (!*groups[i] || !printable(groups[i]) || strchr(groups[i], ','))
            return sl_errprintf(err,
                                "group \"%s\": must be non-empty, without ',' or "
                                "control characters",
                                groups[i]);
    return 0;
}

/* token,user,uid[,"groups"[,expiry]] and the newline */
static void format_line(sl_buf_t *line, const char *token, const char *user, const char *uid,
                        const char *const *groups, long long expires)
{
    sl_buf_puts(line, token);
    sl_buf_putc(line, ',');
    csv_field(line, user);
    sl_buf_putc(line, ',');
    csv_field(line, uid ? uid : "");
    if ((groups && groups[0]) || expires) {
        sl_buf_puts(line, ",\"");
        for (size_t i = 0; groups && groups[i]; i++) {
            if (i)
                sl_buf_putc(line, ',');
            for (const char *g = groups[i]; *g; g++) {
                if (*g == '"')
                    sl_buf_putc(line, '"');
                sl_buf_putc(line, *g);
            }
        }
        sl_buf_putc(line, '"');
    }
    if (expires) {
        time_t tt = (time_t)expires;
        struct tm tm;
        char ts[32];
        gmtime_r(&tt, &tm);
        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
        sl_buf_printf(line, ",%s", ts);
    }
    sl_buf_putc(line, '\n');
}

/* the file fd (size size) is valid and lacks token; *needs_nl when its last
 * line has no newline */
static int check_file(int fd, off_t size, const char *path, const char *token, int *needs_nl,
                      sl_error_t *err)
{
    /* read what is there through this descriptor (a shared lock from here
     * would deadlock against our own exclusive one) */
    char *text = sl_xcalloc(1, (size_t)size + 1);
    ssize_t n = size ? pread(fd, text, (size_t)size, 0) : 0;
    if (n != size) {
        free(text);
        return sl_errprintf(err, "%s: short read", path);
    }
    table_t tab;
    int pr = parse_into(text, path, &tab, err);
    *needs_nl = n > 0 && text[n - 1] != '\n';
    explicit_bzero(text, (size_t)n);
    free(text);
    if (pr < 0) {
        sl_errprefix(err, "not appending to an invalid token file");
        return -1;
    }
    unsigned char d[32];
    sha256(token, d);
    int dup = 0;
    for (size_t i = 0; i < tab.n; i++)
        dup |= !memcmp(tab.e[i].digest, d, sizeof(d));
    table_clear(&tab);
    if (dup) {
        errno = EEXIST;
        return sl_errprintf(err, "%s: the token is already in the file", path);
    }
    return 0;
}

/* line appended to the open file fd, under its exclusive lock */
static int append_locked(int fd, const char *path, const char *token, const sl_buf_t *line,
                         sl_error_t *err)
{
    struct stat sb;
    if (flock(fd, LOCK_EX) < 0 || fstat(fd, &sb) < 0)
        return sl_errprintf(err, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode) || (sb.st_mode & 0026)) {
        errno = EPERM;
        return sl_errprintf(err, "%s: not a regular file of mode 0600 (mode %04o)", path,
                            (unsigned)(sb.st_mode & 07777));
    }
    int needs_nl = 0;
    if (check_file(fd, sb.st_size, path, token, &needs_nl, err) < 0)
        return -1;
    if (needs_nl && write(fd, "\n", 1) != 1)
        return sl_errprintf(err, "%s: %s", path, strerror(errno));
    /* one write: readers under the shared lock see the whole line or none */
    if (write(fd, line->data, line->len) != (ssize_t)line->len || fsync(fd) < 0)
        return sl_errprintf(err, "%s: %s", path, strerror(errno));
    return 0;
}

int sl_auth_tokens_append(const char *path, const char *token, const char *user, const char *uid,
                          const char *const *groups, long long expires, sl_error_t *err)
{
    if (entry_ok(token, user, uid, groups, err) < 0)
        return -1;
    sl_buf_t line = SL_BUF_INIT;
    format_line(&line, token, user, uid, groups, expires);
    int r = -1;
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        sl_errprintf(err, "%s: %s", path, strerror(errno));
    } else {
        r = append_locked(fd, path, token, &line, err);
        close(fd);
    }
    explicit_bzero(line.data, line.len);
    sl_buf_free(&line);
    return r;
}
