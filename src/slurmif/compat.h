/* compat.h — the one place that knows how libslurm's API differs between
 * the releases slurmlink builds against (22.05 to 26.05). The release is
 * that of the headers compiled against (<slurm/slurm_version.h>); every
 * difference is a type or a small function here, so the rest of slurmif
 * reads the same for all of them.
 *
 *   23.11  hostlist_t names the struct, not a pointer to it
 *   24.05  slurm_job_reason_string is exported as slurm_job_state_reason_string
 *   24.11  List/ListIterator gone (list_t *, list_itr_t *); slurm_get_errno
 *          gone (libslurm sets errno; slurm_seterrno is declared, not
 *          exported, in 25.11); slurm_bit_test no longer exported
 *   25.05  node_info_t.select_nodeinfo gone: alloc_cpus, alloc_memory fields
 *   25.11  submit_response_msg_t.job_id moved into step_id
 *   26.05  job calls take a slurm_step_id_t (SLUID); slurm_free_ctl_conf is
 *          slurm_free_conf; update_node_msg_t.reason_uid gone (slurmctld
 *          takes the request's own user)
 */
#ifndef SL_SLURMIF_COMPAT_H
#define SL_SLURMIF_COMPAT_H

#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <stdint.h>
#include <time.h>

#define SL_SLURM_SINCE(major, minor) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

#if !SL_SLURM_SINCE(22, 5)
#error "slurmlink needs the headers of Slurm 22.05 or later"
#endif

/* the same struct tags in every release (the typedefs changed around them) */
typedef struct xlist sl_list_t;
typedef struct listIterator sl_list_itr_t;
typedef struct hostlist sl_hostlist_t;

/* libslurm exports these (strong aliases of its internal helpers) without
 * declaring them in <slurm/slurm.h> (src/common/slurm_protocol_defs.h,
 * parse_time.h, bitstring.h, read_config.h of each release) */
extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_node_state_string(uint32_t inx);
extern time_t slurm_parse_time(char *time_str, int past);
extern bitoff_t slurm_bit_size(bitstr_t *b);
extern int32_t slurm_bit_set_count_range(bitstr_t *b, int32_t start, int32_t end);
/* the configuration slurm_init() loaded */
extern slurm_conf_t slurm_conf;

/* the error of libslurm's last failed call in this thread */
static inline int sl_compat_errno(void)
{
#if SL_SLURM_SINCE(24, 11)
    return errno;
#else
    return slurm_get_errno();
#endif
}

/* set it (25.11 declares slurm_seterrno but no longer exports it) */
static inline void sl_compat_seterrno(int e)
{
#if SL_SLURM_SINCE(24, 11)
    errno = e;
#else
    slurm_seterrno(e);
#endif
}

/* a pending job's reason ("Resources", "Priority", "None") */
#if SL_SLURM_SINCE(24, 5)
extern const char *slurm_job_state_reason_string(enum job_state_reason inx);
#else
extern char *slurm_job_reason_string(int inx);
#endif
static inline const char *sl_compat_reason_string(uint32_t reason)
{
#if SL_SLURM_SINCE(24, 5)
    return slurm_job_state_reason_string((enum job_state_reason)reason);
#else
    return slurm_job_reason_string((int)reason);
#endif
}

/* whether bit is set in b (a count over one bit: exported in every release) */
static inline int sl_compat_bit_test(bitstr_t *b, bitoff_t bit)
{
    return slurm_bit_set_count_range(b, (int32_t)bit, (int32_t)bit + 1) > 0;
}

/* a node's allocated CPUs and memory (MB) */
static inline void sl_compat_node_alloc(const node_info_t *n, unsigned *cpus, uint64_t *mem_mb)
{
#if SL_SLURM_SINCE(25, 5)
    *cpus = n->alloc_cpus;
    *mem_mb = n->alloc_memory;
#else
    uint16_t alloc = 0;
    uint64_t amem = 0;
    slurm_get_select_nodeinfo(n->select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED,
                              &alloc);
    slurm_get_select_nodeinfo(n->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC,
                              NODE_STATE_ALLOCATED, &amem);
    *cpus = alloc;
    *mem_mb = amem;
#endif
}

/* the job id slurmctld gave a submitted batch job */
static inline uint32_t sl_compat_submit_job_id(const submit_response_msg_t *r)
{
#if SL_SLURM_SINCE(25, 11)
    return r->step_id.job_id;
#else
    return r->job_id;
#endif
}

static inline void sl_compat_free_conf(slurm_conf_t *c)
{
#if SL_SLURM_SINCE(26, 5)
    slurm_free_conf(c);
#else
    slurm_free_ctl_conf(c);
#endif
}

/* job calls by job id (26.05 takes a step id: job id, or SLUID) */
static inline int sl_compat_kill_job(uint32_t job_id, uint16_t sig, uint16_t flags)
{
#if SL_SLURM_SINCE(26, 5)
    slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;
    id.job_id = job_id;
    return slurm_kill_job(id, sig, flags);
#else
    return slurm_kill_job(job_id, sig, flags);
#endif
}

static inline int sl_compat_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t show)
{
#if SL_SLURM_SINCE(26, 5)
    slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;
    id.job_id = job_id;
    return slurm_load_job(resp, id, show);
#else
    return slurm_load_job(resp, job_id, show);
#endif
}

/* who set a node's drain reason: before 26.05 the request names it */
static inline void sl_compat_node_reason_uid(update_node_msg_t *m, uint32_t uid)
{
#if SL_SLURM_SINCE(26, 5)
    (void)m;
    (void)uid;
#else
    m->reason_uid = uid;
#endif
}

#endif
