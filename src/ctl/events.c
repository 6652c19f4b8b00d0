/* events.c — the controller's Events go through src/events (kubelet-style
 * aggregation), reported as component "slurmlink". */
#include "ctl/internal.h"
#include "events/events.h"

#include <stdarg.h>
#include <stdio.h>

void ctl_event(sl_ctl_t *c, json_t *involved, const char *type, const char *reason,
               const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (involved)
        sl_event_record(c->store, involved, type, reason, msg, "slurmlink");
}
