/* review.h — the review resources (review.c): SelfSubjectAccessReview,
 * SelfSubjectRulesReview, SubjectAccessReview (authorization.k8s.io/v1)
 * and SelfSubjectReview (authentication.k8s.io/v1). Nothing is stored:
 * each POST is answered from the policy that authorizes real requests. */
#ifndef SL_API_REVIEW_H
#define SL_API_REVIEW_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>

struct api_req;
struct api_path;

/* Is group/version/resource one of the review resources? */
bool api_review_served(const char *group, const char *version, const char *resource);
/* Discovery (discovery.c): is group (version NULL: any) one of theirs;
 * their APIResource entries of group/version appended to list; their two
 * APIGroups appended to groups; their aggregated (apidiscovery v2) group
 * items appended to items. */
bool api_review_group(const char *group, const char *version);
void api_review_resources(const char *group, const char *version, json_t *list);
void api_review_groups(json_t *groups);
void api_review_aggregated(json_t *items);
/* POST of a review, after the router authorized the create: 201 with the
 * review and its status; 404 for a path with a namespace, name or
 * subresource; 405 for another method; 422 for a spec without attributes. */
enum MHD_Result api_handle_review(struct api_req *r, const struct api_path *p, const char *group,
                                  const char *version, const char *resource);

#endif
