/* facts.h — small answers read from the store, kept while the resource
 * they come from is unchanged (api_facts_).
 *
 * A create reads a few objects besides the one it writes: its namespace
 * (there, and not being deleted), its service account, whether the
 * namespace has a quota. Each is a store read and a parse, for an answer
 * that changes rarely. A fact is kept with the revision of its resource's
 * last change as sl_store_resource_rev answered before the read; it is
 * used only while that answer is the same, so any change to an object of
 * the resource (any namespace, any service account) makes it read again.
 * A fixed table, one fact per slot (a newer one takes the slot); thread-safe. */
#ifndef SL_API_FACTS_H
#define SL_API_FACTS_H

#include <stdint.h>

typedef struct api_facts api_facts_t;

typedef enum {
    API_FACT_NAMESPACE,       /* key: the namespace; API_NS_* */
    API_FACT_SERVICE_ACCOUNT, /* key: "ns/name"; 1 if it exists */
    API_FACT_HAS_QUOTA,       /* key: the namespace; 1 if it holds a ResourceQuota */
} api_fact_kind_t;

api_facts_t *api_facts_create(void);
void api_facts_destroy(api_facts_t *f);

/* 1 and *val when (kind, key) was kept at revision rev; else 0 */
int api_facts_get(api_facts_t *f, api_fact_kind_t kind, const char *key, int64_t rev, int *val);
/* (kind, key) is val as read after sl_store_resource_rev answered rev;
 * a key too long to keep is not kept */
void api_facts_put(api_facts_t *f, api_fact_kind_t kind, const char *key, int64_t rev, int val);

#endif
