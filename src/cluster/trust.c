/* trust.c — whether a cluster folder is root's alone before `up` uses it.
 *
 * `up` runs as root and takes what it finds in the folder as the cluster's:
 * the munge key munged signs every credential with, the CA that signs the
 * admin's certificate, the tokens, the policy, the configuration files. A
 * folder another user made first (it defaulted to one under /var/tmp, where
 * anyone may make it), or any of that inside it, would make them the
 * cluster's owner. So `up` refuses, naming the path, its owner and mode:
 *   - a parent folder of D that is not root's, or that group or others may
 *     write without the sticky bit (its owner or they could rename D away
 *     and put their own in its place), a symbolic link not root's; the
 *     folders a link leads to are checked the same way;
 *   - D or a file or folder inside it that `up` relies on: not root's,
 *     writable by group or others, a symbolic link or of the wrong type;
 *     secrets (keys, tokens, passwords) also readable by group or others.
 * What does not exist yet is not checked: `up` makes it, as root. */
#include "common/xalloc.h"
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum tr_kind { TR_DIR, TR_FILE, TR_SECRET };

typedef struct tr_item {
    const char *rel; /* "" is D itself; a folder comes before what is in it */
    enum tr_kind kind;
} tr_item_t;

static const tr_item_t items[] = {
    {"", TR_DIR},
    {"etc", TR_DIR},
    {"pki", TR_DIR},
    {"run", TR_DIR},
    {"log", TR_DIR},
    {"state", TR_DIR},
    {"spool", TR_DIR},
    {"slurmlinkd", TR_DIR},
    {"pods", TR_DIR},
    {"images", TR_DIR},
    {"pmix", TR_DIR},
    {"db", TR_DIR},
    {"db-tmp", TR_DIR},
    {"dev", TR_DIR},
    {"nodes", TR_DIR},
    {"cluster.json", TR_FILE},
    {"kubeconfig", TR_SECRET},
    {"etc/munge.key", TR_SECRET},
    {"etc/slurm.conf", TR_FILE},
    {"etc/gres.conf", TR_FILE},
    {"etc/cgroup.conf", TR_FILE},
    {"etc/mpi.conf", TR_FILE},
    {"etc/slurmlink-gpu.json", TR_FILE},
    {"etc/slurmdbd.conf", TR_SECRET},
    {"etc/slurmlinkd.conf", TR_FILE},
    {"etc/policy.yaml", TR_FILE},
    {"etc/storage-classes.yaml", TR_FILE},
    {"shared", TR_DIR},
    {"etc/tokens.csv", TR_SECRET},
    {"pki/ca.crt", TR_FILE},
    {"pki/ca.key", TR_SECRET},
    {"pki/server.crt", TR_FILE},
    {"pki/server.key", TR_SECRET},
    {"pki/admin.crt", TR_FILE},
    {"pki/admin.key", TR_SECRET},
    {"nodes/hosts", TR_FILE},
};

static int refuse(const char *path, const struct stat *sb, const char *why, sl_error_t *err)
{
    struct passwd *pw = getpwuid(sb->st_uid);
    errno = EPERM;
    return sl_errprintf(err, "refusing %s: owned by uid %u (%s) with mode %04o: %s", path,
                        (unsigned)sb->st_uid, pw ? pw->pw_name : "no such user",
                        (unsigned)(sb->st_mode & 07777), why);
}

/* one parent folder (or link) of the cluster folder; 1 when it is a link */
static int check_parent(const char *path, const struct stat *sb, sl_error_t *err)
{
    if (sb->st_uid != 0)
        return refuse(path, sb,
                      "a parent of the cluster folder must be root's (its owner could put "
                      "another folder in the cluster folder's place)",
                      err);
    if (S_ISLNK(sb->st_mode))
        return 1;
    if (!S_ISDIR(sb->st_mode))
        return refuse(path, sb, "not a folder", err);
    if ((sb->st_mode & 022) && !(sb->st_mode & S_ISVTX))
        return refuse(path, sb,
                      "a parent of the cluster folder that group or others may write "
                      "without the sticky bit (they could put another folder in its place)",
                      err);
    return 0;
}

/* every existing parent of the absolute path, "/" first; *links: one was a link */
static int walk_parents(const char *path, int *links, sl_error_t *err)
{
    char *p = sl_xstrdup(path);
    int r = 0;
    for (char *slash = p; r == 0 && (slash = strchr(slash + 1, '/'));) {
        *slash = '\0';
        struct stat sb;
        const char *cur = *p ? p : "/";
        if (lstat(cur, &sb) < 0) {
            *slash = '/';
            if (errno != ENOENT)
                r = sl_errprintf(err, "stat %s: %s", cur, strerror(errno));
            break; /* the rest `up` makes */
        }
        r = check_parent(cur, &sb, err);
        if (r == 1) {
            *links = 1;
            r = 0;
        }
        *slash = '/';
    }
    struct stat root;
    if (r == 0 && lstat("/", &root) == 0)
        r = check_parent("/", &root, err) < 0 ? -1 : 0;
    free(p);
    return r;
}

int cl_trust_parents(const char *dir, sl_error_t *err)
{
    int links = 0;
    if (walk_parents(dir, &links, err) < 0)
        return -1;
    if (!links)
        return 0;
    /* where the links lead: the deepest existing parent, resolved */
    char *p = sl_xstrdup(dir), *slash;
    char real[PATH_MAX];
    int r = 0;
    while ((slash = strrchr(p, '/')) && slash != p) {
        *slash = '\0';
        if (realpath(p, real)) {
            char *child = sl_xasprintf("%s/x", real);
            int again = 0;
            r = walk_parents(child, &again, err);
            free(child);
            break;
        }
    }
    free(p);
    return r;
}

static int check_item(const char *path, const tr_item_t *it, sl_error_t *err)
{
    struct stat sb;
    if (lstat(path, &sb) < 0)
        return errno == ENOENT ? 0 : sl_errprintf(err, "stat %s: %s", path, strerror(errno));
    int dir = it->kind == TR_DIR;
    if (S_ISLNK(sb.st_mode))
        return refuse(path, &sb, "a symbolic link where `up` wants its own file", err);
    if (dir ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))
        return refuse(path, &sb, dir ? "not a folder" : "not a regular file", err);
    if (sb.st_uid != 0)
        return refuse(path, &sb,
                      "the cluster's files must be root's (their owner would control the "
                      "cluster: its munge key, CA and policy); remove it, or use another folder",
                      err);
    if (sb.st_mode & 022)
        return refuse(path, &sb, "writable by group or others", err);
    if (it->kind == TR_SECRET && (sb.st_mode & 077))
        return refuse(path, &sb,
                      "a secret readable by group or others (it may be known to them): "
                      "remove it to have a new one made",
                      err);
    return 0;
}

int cl_trust_folder(const char *dir, sl_error_t *err)
{
    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        char *p = *items[i].rel ? sl_xasprintf("%s/%s", dir, items[i].rel) : sl_xstrdup(dir);
        int r = check_item(p, &items[i], err);
        free(p);
        if (r < 0)
            return -1;
    }
    return 0;
}
