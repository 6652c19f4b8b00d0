/* down.c — stop what a folder started; status — report it. */
#include "common/proc.h"
#include "common/xalloc.h"
#include "internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sl_cluster_down(const char *dir, FILE *out, sl_error_t *err)
{
    cl_state_t st;
    if (cl_state_load(dir, &st, err) < 0)
        return -1;
    int stopped = 0;
    int order[CL_MAX_INST];
    int n = cl_inst_order(&st, order);
    /* reverse start order: the API first, munged last (the others need it to shut down) */
    for (int i = n - 1; i >= 0; i--) {
        int id = order[i];
        char name[32];
        cl_inst_name(&st, id, name, sizeof(name));
        pid_t pid = cl_pidfile_read(&st, id);
        if (cl_pid_belongs(pid, st.dir) && cl_stop_pid(pid, 10000)) {
            stopped++;
            if (out)
                fprintf(out, "slurmlink: stopped %s (pid %d)\n", name, (int)pid);
        }
        char *p = sl_xasprintf("%s/run/%s.pid", st.dir, name);
        unlink(p);
        free(p);
    }
    /* job steps and anything else started under the folder's environment */
    int swept = cl_sweep(st.dir);
    if (swept && out)
        fprintf(out, "slurmlink: stopped %d left-over process%s of %s\n", swept,
                swept == 1 ? "" : "es", st.dir);
    stopped += swept;
    /* the nodes' namespaces, veth links and bridge (netns.c) */
    int links = cl_net_down(&st);
    if (links && out)
        fprintf(out, "slurmlink: removed %d namespace%s and link%s of %s\n", links,
                links == 1 ? "" : "s", links == 1 ? "" : "s", st.dir);
    if (out && stopped == 0)
        fprintf(out, "slurmlink: nothing was running in %s\n", st.dir);
    cl_state_clear(&st);
    return stopped;
}

int sl_cluster_status(const char *dir, int json, FILE *out, sl_error_t *err)
{
    cl_state_t st;
    if (cl_state_load(dir, &st, err) < 0)
        return -1;
    int all = 1;
    json_t *arr = json_array();
    int order[CL_MAX_INST];
    int n = cl_inst_order(&st, order);
    for (int i = 0; i < n; i++) {
        int id = order[i];
        char name[32];
        pid_t pid = cl_pidfile_read(&st, id);
        int up = cl_pid_belongs(pid, st.dir);
        if (!up)
            all = 0;
        json_array_append_new(arr, json_pack("{s:s, s:i, s:i, s:s}", "name",
                                             cl_inst_name(&st, id, name, sizeof(name)), "pid",
                                             up ? (int)pid : 0, "port", st.port[cl_inst_daemon(id)],
                                             "state", up ? "running" : "stopped"));
    }
    if (json) {
        json_t *o = json_pack("{s:s, s:o, s:b, s:i, s:i}", "dir", st.dir, "daemons", arr, "running",
                              all, "gpus", st.gpus, "nodes", st.nodes);
        char *s = json_dumps(o, JSON_INDENT(2));
        fprintf(out, "%s\n", s);
        free(s);
        json_decref(o);
    } else {
        int w = cl_multi(&st) ? 13 : 11;
        fprintf(out, "%-*s %-8s %-7s %s\n", w, "DAEMON", "STATE", "PID", "PORT");
        size_t i;
        json_t *d;
        json_array_foreach(arr, i, d)
        {
            int port = (int)json_integer_value(json_object_get(d, "port"));
            int pid = (int)json_integer_value(json_object_get(d, "pid"));
            char pidbuf[16], portbuf[16];
            snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
            snprintf(portbuf, sizeof(portbuf), "%d", port);
            fprintf(out, "%-*s %-8s %-7s %s\n", w, json_string_value(json_object_get(d, "name")),
                    json_string_value(json_object_get(d, "state")), pid ? pidbuf : "-",
                    port ? portbuf : "unix socket");
        }
        json_decref(arr);
    }
    cl_state_clear(&st);
    return all ? 0 : 1;
}
