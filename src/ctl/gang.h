/* gang.h — a replica set of pods run as ONE Slurm job: the gang.
 *
 * A multi-node Slurm job is a gang by construction: slurmctld allocates all
 * of its nodes at once or none, so replicas never start apart (no gang
 * scheduler, no half-started job deadlocked on its rendezvous). The job is
 * `--nodes=N --ntasks-per-node=1`, one node per member; its batch script
 * starts one `srun --nodes=1 --ntasks=1 --relative=i` step per member,
 * each running member i's own job.sh (its pod folder, shim, token), so every
 * replica pod has its own logs and status through the shim's push path;
 * the pod controller follows the one Slurm job for each of them, each on
 * its own node of the job (poll.c follow_gang, ctl_pod_t.gang_rank).
 *
 * Not specific to any kind: the owner (a PyTorchJob or an MPIJob, src/kinds/kubeflow/controller.c)
 * gives the pods in rank order, what each step exports, and what the
 * batch script runs on the first node before the steps; an MPIJob's
 * Launcher is a batch member (it runs in the batch step, beside Worker 0
 * on the first node) and its Workers have slotsPerWorker tasks per node.
 *
 * Names: every member's spec.hostname/spec.subdomain go into each member's
 * shim.json (translate's gang_members), and each member's shim puts the
 * others' DNS names in its pod's hosts file at the address of their node,
 * node i mod N of the job for member i (src/shimlib/hosts.h): the rule
 * the steps below follow, whether members share nodes or not.
 *
 * Never two submissions of one gang: the members' pods exist (each with
 * its rank and the owner's uid, server-owned) before the job is submitted;
 * a job whose comment carries the owner's uid and this gang's attempt is
 * adopted, never submitted again (fault point after-gang-submit). */
#ifndef SL_CTL_GANG_H
#define SL_CTL_GANG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/internal.h"

#define CTL_ANN_GANG_RANK "slurmlink.io/gang-rank"       /* a member pod's node offset */
#define CTL_ANN_GANG_ATTEMPT "slurmlink.io/gang-attempt" /* the owner's run a member belongs to */

typedef struct ctl_gang_member {
    json_t *pod;            /* the stored pod (borrowed); its node: CTL_ANN_GANG_RANK */
    const char *const *env; /* "NAME=VALUE" its step exports (NULL-terminated; may be NULL) */
    int batch;              /* runs in the job's batch step on the first node (an MPIJob's
                             * Launcher), not as a step: the job's exit status is its own, and
                             * the steps are ended (SIGTERM) when it ends */
    size_t after;           /* its step starts once the containers of members 0..after-1 have
                             * started (or ended): a JobSet's startupPolicy InOrder; 0: at once.
                             * Nondecreasing in rank order (the steps start in that order) */
} ctl_gang_member_t;

typedef struct ctl_gang {
    json_t *owner;        /* the owning object (borrowed) */
    const char *kind;     /* its kind, for the script's header and the logs */
    long long attempt;    /* which run of the owner this is (its comment says so) */
    ctl_gang_member_t *m; /* rank order: member i runs on node i of the job */
    size_t n;
    const char *head;        /* shell lines run on the first node before the steps, or NULL */
    size_t nodes;            /* the job's nodes; 0: n */
    unsigned tasks_per_node; /* --ntasks-per-node; 0: 1 */
    /* a node range (an elastic PyTorchJob): --nodes=nodes_min-nodes, the
     * members the first nodes_min (n of them); the members of the nodes Slurm
     * allocates beyond them are made once it has (ctl_gang_join); 0: none */
    size_t nodes_min;
    /* members per node when there are more members than Slurm has nodes
     * (ctl_gang_submit sets it): member i on node i mod nodes, the job's
     * per-node memory and GPUs that many times a member's, the steps
     * sharing the allocation (srun --overlap); 0: one member per node */
    unsigned per_node;
    /* 1: nodes (each with tasks_per_node tasks) beyond those Slurm has are
     * packed as members are, per_node of them to a node (an MPIJob's
     * Workers); 0: a job of more nodes than Slurm has is refused */
    int pack;
    /* an MPI launcher in a container (the batch member): its folder,
     * relative to its pod folder, that its container sees as /etc/mpi. The
     * batch script writes there the hostfile (text below, the owner's), the
     * rsh agent (slurmlink-mpi-rsh, beside the shim; also in the same folder
     * of every other member, where mpirun's daemons look it up) and the
     * agent's socket,
     * served by `slurmlink-shim mpi-serve` (src/shim/mpiserve.c), which runs
     * the agent's commands in the first container of the step member whose
     * pod name the host names (its first label), through a step of the
     * job on that member's node; the batch member starts once every step
     * member's container has (or has ended). NULL: none */
    const char *rsh_dir;
    char *hostfile;
} ctl_gang_t;

/* A member pod's bookkeeping (server-owned annotations): the template's
 * server-owned ones dropped, the owner's uid (SL_ANN_JOB_UID, so the pod
 * controller finds it: ctl_pods_naming), its member index i, its node
 * (CTL_ANN_GANG_RANK), the attempt (CTL_ANN_GANG_ATTEMPT) and the
 * owner's user. */
void ctl_gang_pod_bookkeeping(json_t *pod, json_t *owner, size_t node, size_t i, long long attempt);

/* The comment of the gang's job: "slurmlink:uid=OWNER slurmlink:gang=ATTEMPT". */
void ctl_gang_comment(const ctl_gang_t *g, char *out, size_t len);

/* The gang submitted (or its job found and adopted): 0 with *id, the job id
 * recorded on every member pod (more members than Slurm has nodes, without
 * a node range or nodes given: several on a node, per_node); 1: not now
 * (Slurm unreachable, a member not yet known to the pod controller or its
 * image still pulled); -1: refused for good (the members failed, saying
 * why). */
int ctl_gang_submit(sl_ctl_t *c, const ctl_gang_t *g, uint32_t *id);

/* A node range's job: the batch script first waits until the pod folder of
 * every node Slurm allocated beyond the first nodes_min is linked as
 * PODS_ROOT/.job-tasks/OWNER/ATTEMPT.0/RANK (the Job's mechanism, jobtask.h;
 * at most CTL_JOBTASK_WAIT_S seconds), then starts every step together. ctl_gang_join: the late
 * members g->m (their ranks in CTL_ANN_GANG_RANK) prepared, job id recorded
 * on each, then linked: 0; 1: not now (a member not yet known to the pod
 * controller); -1: a member failed (it says why). */
int ctl_gang_join(sl_ctl_t *c, const ctl_gang_t *g, uint32_t id);

/* The batch script's head of an MPI launcher in the batch step: the
 * hostfile of the job's nodes (`<node> slots=N`, Intel and MPICH
 * `<node>:N`; N: slots times the workers on the node, worker i on node i
 * mod the job's nodes) and the MPI's Slurm launcher pointed at it with
 * --overlap (the members' steps hold the nodes' task slots); impl
 * "OpenMPI" (NULL: the same), "Intel" or "MPICH". New string. */
char *ctl_gang_mpi_head(const char *impl, long long slots, size_t workers);

/* The nodes Slurm allocated job id: their count while it runs, 0 while it
 * is pending (or Slurm cannot tell now), -1 once it is over or gone. */
long ctl_gang_nodes_now(uint32_t id);

#endif
