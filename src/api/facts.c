/* facts.c — see facts.h */
#include "api/facts.h"

#include <pthread.h>
#include <string.h>

#include "common/xalloc.h"

#define FACTS_SLOTS 1024
#define FACTS_KEY 320 /* a namespace, '/' and a name: 63 + 1 + 253 */

typedef struct {
    int used;
    api_fact_kind_t kind;
    int64_t rev;
    int val;
    char key[FACTS_KEY + 1];
} fact_t;

struct api_facts {
    pthread_mutex_t mu;
    fact_t slot[FACTS_SLOTS];
};

api_facts_t *api_facts_create(void)
{
    api_facts_t *f = sl_xcalloc(1, sizeof(*f));
    pthread_mutex_init(&f->mu, NULL);
    return f;
}

void api_facts_destroy(api_facts_t *f)
{
    if (!f)
        return;
    pthread_mutex_destroy(&f->mu);
    free(f);
}

/* FNV-1a of the kind and the key */
static size_t slot_of(api_fact_kind_t kind, const char *key)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)kind;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)(h % FACTS_SLOTS);
}

int api_facts_get(api_facts_t *f, api_fact_kind_t kind, const char *key, int64_t rev, int *val)
{
    if (strlen(key) > FACTS_KEY)
        return 0;
    pthread_mutex_lock(&f->mu);
    fact_t *s = &f->slot[slot_of(kind, key)];
    int hit = s->used && s->kind == kind && s->rev == rev && !strcmp(s->key, key);
    if (hit)
        *val = s->val;
    pthread_mutex_unlock(&f->mu);
    return hit;
}

void api_facts_put(api_facts_t *f, api_fact_kind_t kind, const char *key, int64_t rev, int val)
{
    if (strlen(key) > FACTS_KEY)
        return;
    pthread_mutex_lock(&f->mu);
    fact_t *s = &f->slot[slot_of(kind, key)];
    /* an older reader's answer does not replace a newer one's */
    if (!(s->used && s->kind == kind && s->rev > rev && !strcmp(s->key, key))) {
        *s = (fact_t){.used = 1, .kind = kind, .rev = rev, .val = val};
        strcpy(s->key, key);
    }
    pthread_mutex_unlock(&f->mu);
}
