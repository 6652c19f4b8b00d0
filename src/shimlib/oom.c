/* oom.c — OOM-kill counters (see oom.h for what can and cannot be known). */
#include "shimlib/oom.h"

#include "common/fsutil.h"
#include "common/xalloc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after "key " on its own line in a small "key value" file. */
static long long read_counter(const char *path, const char *key)
{
    char *s = sl_read_file(path, NULL, NULL);
    if (!s)
        return -1;
    long long v = -1;
    size_t kl = strlen(key);
    for (char *line = s; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!strncmp(line, key, kl) && line[kl] == ' ') {
            v = strtoll(line + kl + 1, NULL, 10);
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(s);
    return v;
}

static long long cgroup_counter(const char *root)
{
    char *path = sl_xasprintf("%s/proc/self/cgroup", root);
    char *s = sl_read_file(path, NULL, NULL);
    free(path);
    if (!s)
        return -1;
    long long v = -1;
    char *v2 = NULL, *v1 = NULL;
    for (char *line = s; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        /* "hierarchy-id:controllers:path" */
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c1 && c2) {
            *c1 = '\0';
            *c2 = '\0';
            const char *ctrls = c1 + 1, *cpath = c2 + 1;
            if (!strcmp(line, "0") && !*ctrls)
                v2 = (char *)cpath;
            else {
                /* comma-separated controller list containing "memory" */
                char *dup = sl_xstrdup(ctrls), *save = NULL;
                for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
                    if (!strcmp(t, "memory"))
                        v1 = (char *)cpath;
                free(dup);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if (v1) {
        char *p = sl_xasprintf("%s/sys/fs/cgroup/memory%s/memory.oom_control", root, v1);
        v = read_counter(p, "oom_kill");
        free(p);
    }
    if (v < 0 && v2) {
        char *p = sl_xasprintf("%s/sys/fs/cgroup%s/memory.events", root, v2);
        v = read_counter(p, "oom_kill");
        free(p);
    }
    free(s);
    return v;
}

void sl_oom_mark(sl_oom_mark_t *m, const char *root)
{
    if (!root)
        root = "";
    m->cgroup = cgroup_counter(root);
    char *p = sl_xasprintf("%s/proc/vmstat", root);
    m->node = read_counter(p, "oom_kill");
    free(p);
}

int sl_oom_since(const sl_oom_mark_t *m, const char *root)
{
    sl_oom_mark_t now;
    sl_oom_mark(&now, root);
    if (m->cgroup >= 0 && now.cgroup >= 0)
        return now.cgroup > m->cgroup;
    if (m->node >= 0 && now.node >= 0)
        return now.node > m->node;
    return 0;
}

const char *sl_oom_reason(int exit_code, int term_signal, int sent_kill, const sl_oom_mark_t *start,
                          const char *root)
{
    if (exit_code == 0 && term_signal == 0)
        return "Completed";
    int sigkill = term_signal == SIGKILL || (term_signal == 0 && exit_code == 128 + SIGKILL);
    if (sigkill && !sent_kill && start && sl_oom_since(start, root))
        return "OOMKilled";
    return "Error";
}
