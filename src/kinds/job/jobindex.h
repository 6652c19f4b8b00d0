/* jobindex.h — the index sets of a Kubernetes Job as its status writes them
 * (completedIndexes, failedIndexes: "0-3,5,7-9", ascending, each run of
 * consecutive indexes as first-last, a lone index alone) and as Slurm's
 * --array takes them ("0-3,5%2"). Pure functions, no state. */
#ifndef SL_CTL_JOBINDEX_H
#define SL_CTL_JOBINDEX_H

#include <jansson.h>
#include <stddef.h>

/* The intervals of the indexes i < n with set[i] != 0 ("" when none).
 * Caller frees. */
char *ctl_index_intervals(const unsigned char *set, size_t n);

/* Parse an interval string into set (n entries, zeroed first): 0, or -1
 * for a malformed one or an index >= n (set then undefined). */
int ctl_index_parse(const char *s, unsigned char *set, size_t n);

/* --array's value for the indexes of set and a throttle (0: none):
 * "0-5%2", "3,7". Caller frees. */
char *ctl_index_array_spec(const unsigned char *set, size_t n, unsigned throttle);

/* successPolicy (matchSuccessPolicy of kube 1.32's Job controller): the
 * index of the first of rules (spec.successPolicy.rules) that the
 * succeeded indexes done[0..n) meet, or -1. A rule with succeededIndexes
 * needs all of them succeeded, or succeededCount of them; one with only
 * succeededCount that many succeeded indexes in all. */
int ctl_index_success_rule(json_t *rules, const unsigned char *done, size_t n);

#endif
