/* mergekeys.c — patchStrategy/patchMergeKey of the kinds slurmlink serves, from
 * the struct tags in k8s.io/api (core/v1, batch/v1 and apps/v1 types.go,
 * meta/v1 types.go). Only fields that carry a tag, or lead to one, are
 * listed: everything else merges as a map or is replaced as a list, which
 * is what strategic merge does for untagged fields. */
#include "kube/mergekeys.h"

#include <string.h>

#define END                                                                                        \
    {                                                                                              \
        NULL, SMP_DEFAULT, NULL, NULL                                                              \
    }

static const struct smp_type t_object_meta, t_pod_spec, t_pod_status, t_container, t_pod_template,
    t_job_spec, t_job_status, t_node_spec, t_node_status, t_ns_status;

static const struct smp_field f_object_meta[] = {
    {"finalizers", SMP_MERGE, NULL, NULL}, {"ownerReferences", SMP_MERGE, "uid", NULL}, END};
static const struct smp_type t_object_meta = {f_object_meta};

static const struct smp_field f_container[] = {{"ports", SMP_MERGE, "containerPort", NULL},
                                               {"env", SMP_MERGE, "name", NULL},
                                               {"volumeMounts", SMP_MERGE, "mountPath", NULL},
                                               {"volumeDevices", SMP_MERGE, "devicePath", NULL},
                                               END};
static const struct smp_type t_container = {f_container};

static const struct smp_field f_pod_spec[] = {
    {"volumes", SMP_MERGE, "name", NULL}, /* merge,retainKeys */
    {"initContainers", SMP_MERGE, "name", &t_container},
    {"containers", SMP_MERGE, "name", &t_container},
    {"ephemeralContainers", SMP_MERGE, "name", &t_container},
    {"imagePullSecrets", SMP_MERGE, "name", NULL},
    {"hostAliases", SMP_MERGE, "ip", NULL},
    {"topologySpreadConstraints", SMP_MERGE, "topologyKey", NULL},
    {"schedulingGates", SMP_MERGE, "name", NULL},
    {"resourceClaims", SMP_MERGE, "name", NULL}, /* merge,retainKeys */
    END};
static const struct smp_type t_pod_spec = {f_pod_spec};

static const struct smp_field f_pod_status[] = {
    {"conditions", SMP_MERGE, "type", NULL},
    {"podIPs", SMP_MERGE, "ip", NULL},
    {"hostIPs", SMP_MERGE, "ip", NULL},
    {"resourceClaimStatuses", SMP_MERGE, "name", NULL}, /* merge,retainKeys */
    END};
static const struct smp_type t_pod_status = {f_pod_status};

static const struct smp_field f_pod[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta},
                                         {"spec", SMP_DEFAULT, NULL, &t_pod_spec},
                                         {"status", SMP_DEFAULT, NULL, &t_pod_status},
                                         END};
static const struct smp_type t_pod = {f_pod};

static const struct smp_field f_pod_template[] = {
    {"metadata", SMP_DEFAULT, NULL, &t_object_meta}, {"spec", SMP_DEFAULT, NULL, &t_pod_spec}, END};
static const struct smp_type t_pod_template = {f_pod_template};

static const struct smp_field f_job_spec[] = {{"template", SMP_DEFAULT, NULL, &t_pod_template},
                                              END};
static const struct smp_type t_job_spec = {f_job_spec};

static const struct smp_field f_conditions_only[] = {{"conditions", SMP_MERGE, "type", NULL}, END};
static const struct smp_type t_job_status = {f_conditions_only};
static const struct smp_type t_ns_status = {f_conditions_only};

static const struct smp_field f_job[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta},
                                         {"spec", SMP_DEFAULT, NULL, &t_job_spec},
                                         {"status", SMP_DEFAULT, NULL, &t_job_status},
                                         END};
static const struct smp_type t_job = {f_job};

static const struct smp_field f_job_template[] = {
    {"metadata", SMP_DEFAULT, NULL, &t_object_meta}, {"spec", SMP_DEFAULT, NULL, &t_job_spec}, END};
static const struct smp_type t_job_template = {f_job_template};
static const struct smp_field f_cronjob_spec[] = {
    {"jobTemplate", SMP_DEFAULT, NULL, &t_job_template}, END};
static const struct smp_type t_cronjob_spec = {f_cronjob_spec};
static const struct smp_field f_cronjob[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta},
                                             {"spec", SMP_DEFAULT, NULL, &t_cronjob_spec},
                                             END};
static const struct smp_type t_cronjob = {f_cronjob};

static const struct smp_field f_pod_template_obj[] = {
    {"metadata", SMP_DEFAULT, NULL, &t_object_meta},
    {"template", SMP_DEFAULT, NULL, &t_pod_template},
    END};
static const struct smp_type t_pod_template_obj = {f_pod_template_obj};

static const struct smp_field f_node_spec[] = {{"podCIDRs", SMP_MERGE, NULL, NULL}, END};
static const struct smp_type t_node_spec = {f_node_spec};

static const struct smp_field f_node_status[] = {
    {"conditions", SMP_MERGE, "type", NULL}, {"addresses", SMP_MERGE, "type", NULL}, END};
static const struct smp_type t_node_status = {f_node_status};

static const struct smp_field f_node[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta},
                                          {"spec", SMP_DEFAULT, NULL, &t_node_spec},
                                          {"status", SMP_DEFAULT, NULL, &t_node_status},
                                          END};
static const struct smp_type t_node = {f_node};

static const struct smp_field f_namespace[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta},
                                               {"status", SMP_DEFAULT, NULL, &t_ns_status},
                                               END};
static const struct smp_type t_namespace = {f_namespace};

static const struct smp_field f_service_account[] = {
    {"metadata", SMP_DEFAULT, NULL, &t_object_meta}, {"secrets", SMP_MERGE, "name", NULL}, END};
static const struct smp_type t_service_account = {f_service_account};

static const struct smp_field f_service_spec[] = {{"ports", SMP_MERGE, "port", NULL}, END};
static const struct smp_type t_service_spec = {f_service_spec};
static const struct smp_type t_service_status = {f_conditions_only};
static const struct smp_field f_service[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta},
                                             {"spec", SMP_DEFAULT, NULL, &t_service_spec},
                                             {"status", SMP_DEFAULT, NULL, &t_service_status},
                                             END};
static const struct smp_type t_service = {f_service};

/* ConfigMap, Secret, Event and unknown kinds: metadata rules only. */
static const struct smp_field f_generic[] = {{"metadata", SMP_DEFAULT, NULL, &t_object_meta}, END};
static const struct smp_type t_generic = {f_generic};

static const struct {
    const char *api_version, *kind;
    const struct smp_type *type;
} kinds[] = {
    {"v1", "Pod", &t_pod},
    {"v1", "PodTemplate", &t_pod_template_obj},
    {"v1", "Node", &t_node},
    {"v1", "Namespace", &t_namespace},
    {"v1", "ServiceAccount", &t_service_account},
    {"v1", "Service", &t_service},
    {"batch/v1", "Job", &t_job},
    {"batch/v1", "CronJob", &t_cronjob},
    /* apps/v1: spec.template a pod template, status.conditions merged by
     * type, as a Job's */
    {"apps/v1", "Deployment", &t_job},
    {"apps/v1", "ReplicaSet", &t_job},
    {"apps/v1", "StatefulSet", &t_job},
};

const struct smp_type *sl_kube_mergekeys_for(const char *api_version, const char *kind)
{
    for (size_t i = 0; api_version && kind && i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].api_version, api_version) && !strcmp(kinds[i].kind, kind))
            return kinds[i].type;
    return &t_generic;
}

const struct smp_field *sl_kube_mergekeys_field(const struct smp_type *t, const char *name)
{
    if (!t || !t->fields)
        return NULL;
    for (const struct smp_field *f = t->fields; f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}
