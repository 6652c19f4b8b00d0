/* nodeops.h — writes of nodes and pods that act on Slurm: kubectl cordon
 * and uncordon (a node's spec.unschedulable: drain or resume in Slurm,
 * nodeops.c) and kubectl drain's evictions (policy/v1 Eviction of a pod: a
 * graceful delete, eviction.c). */
#ifndef SL_API_NODEOPS_H
#define SL_API_NODEOPS_H

#include <microhttpd.h>

struct api_req;
struct api_path;

/* PATCH .../nodes/NAME, after the router authorized it: only
 * spec.unschedulable may change (422 otherwise); a change drains or
 * resumes the Slurm node and the stored node follows. */
enum MHD_Result api_handle_node_patch(struct api_req *r, const struct api_path *p);
/* POST .../pods/NAME/eviction, after the router authorized the create. */
enum MHD_Result api_handle_eviction(struct api_req *r, const struct api_path *p);
/* GET, PUT, PATCH .../NAME/scale of a kind with ops->scale_sub (scale.c) */
enum MHD_Result api_handle_scale(struct api_req *r, const struct api_path *p);
/* PATCH/PUT of pods/ephemeralcontainers (kubectl debug): 422 naming why */
enum MHD_Result api_handle_ephemeral(struct api_req *r, const struct api_path *p);

#endif
