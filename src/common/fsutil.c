#include "fsutil.h"
#include "buf.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_mkdir_p(const char *path, mode_t mode, sl_error_t *err)
{
    char *p = sl_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, mode) < 0 && errno != EEXIST) {
            sl_errprintf(err, "mkdir %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    if (mkdir(p, mode) < 0 && errno != EEXIST) {
        sl_errprintf(err, "mkdir %s: %s", p, strerror(errno));
        free(p);
        return -1;
    }
    free(p);
    return 0;
}

/* The temporary file beside path: a short name of its own (path's name
 * may already be as long as a name can be), unique (mkostemp). */
static char *tmp_beside(const char *path, int *fd)
{
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) + 1 : 0;
    char *tmp = sl_xasprintf("%.*s.sl-tmp-XXXXXX", dir, path);
    *fd = mkostemp(tmp, O_CLOEXEC);
    return tmp;
}

int sl_write_file(const char *path, const void *data, size_t len, mode_t mode, sl_error_t *err)
{
    /* errors name path, never the temporary file */
    int fd;
    char *tmp = tmp_beside(path, &fd);
    if (fd < 0) {
        sl_errprintf(err, "create %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            sl_errprintf(err, "write %s: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        p += n;
        left -= (size_t)n;
    }
    if (fchmod(fd, mode) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
        sl_errprintf(err, "write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

char *sl_read_file(const char *path, size_t *len, sl_error_t *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sl_errprintf(err, "open %s: %s", path, strerror(errno));
        return NULL;
    }
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_append(&b, "", 0);
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            sl_errprintf(err, "read %s: %s", path, strerror(errno));
            close(fd);
            sl_buf_free(&b);
            return NULL;
        }
        if (n == 0)
            break;
        sl_buf_append(&b, chunk, (size_t)n);
    }
    close(fd);
    if (len)
        *len = b.len;
    return sl_buf_steal(&b);
}

static int rm_rf_at(int parent, const char *name)
{
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode)) {
        int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -1;
        DIR *d = fdopendir(fd);
        if (!d) {
            close(fd);
            return -1;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            rm_rf_at(dirfd(d), de->d_name);
        }
        closedir(d);
        return unlinkat(parent, name, AT_REMOVEDIR);
    }
    return unlinkat(parent, name, 0);
}

int sl_rm_rf(const char *path)
{
    return rm_rf_at(AT_FDCWD, path);
}

char *sl_tail_file(const char *path, int n)
{
    char *s = sl_read_file(path, NULL, NULL);
    if (!s)
        return sl_xstrdup("");
    size_t len = strlen(s);
    while (len && s[len - 1] == '\n')
        s[--len] = '\0';
    char *p = s + len;
    int lines = 0;
    while (p > s) {
        if (p[-1] == '\n' && ++lines >= n)
            break;
        p--;
    }
    char *r = sl_xstrdup(p);
    free(s);
    return r;
}

char *sl_abspath(const char *path)
{
    sl_buf_t b = SL_BUF_INIT;
    if (path[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof(cwd)))
            sl_buf_puts(&b, cwd);
    }
    sl_buf_putc(&b, '/');
    sl_buf_puts(&b, path);
    /* normalise: drop "//", "/./", resolve "/../" lexically */
    char *in = sl_buf_steal(&b);
    char *out = sl_xcalloc(1, strlen(in) + 2);
    size_t o = 0;
    char *save = NULL;
    for (char *tok = strtok_r(in, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (!strcmp(tok, "."))
            continue;
        if (!strcmp(tok, "..")) {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
            out[o] = '\0';
            continue;
        }
        out[o++] = '/';
        size_t l = strlen(tok);
        memcpy(out + o, tok, l);
        o += l;
        out[o] = '\0';
    }
    if (o == 0)
        strcpy(out, "/");
    free(in);
    return out;
}

char *sl_self_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return sl_xstrdup(".");
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    return sl_xstrdup(buf);
}

int sl_lock_pidfile(const char *path, pid_t *holder, sl_error_t *err)
{
    *holder = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return sl_errprintf(err, "open %s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        char text[32] = "";
        ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
        if (n > 0)
            *holder = (pid_t)strtol(text, NULL, 10);
        close(fd);
        errno = e == EAGAIN ? EWOULDBLOCK : e;
        return sl_errprintf(err, "lock %s: %s", path, strerror(e));
    }
    char text[32];
    int len = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)len, 0) != len) {
        int e = errno;
        close(fd);
        errno = e;
        return sl_errprintf(err, "write %s: %s", path, strerror(e));
    }
    return fd;
}
