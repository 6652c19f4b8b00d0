/* facts — answers kept by (kind, key) at a resource revision: found only
 * at that revision, of that kind and key; an older reader's answer does
 * not replace a newer one; a key too long is not kept. */
#include "api/facts.h"
#include "common/tap.h"

#include <string.h>

int main(void)
{
    tap_plan(8);
    api_facts_t *f = api_facts_create();
    int v = -1;
    ok(!api_facts_get(f, API_FACT_NAMESPACE, "a", 5, &v), "nothing kept at first");
    api_facts_put(f, API_FACT_NAMESPACE, "a", 5, 2);
    ok(api_facts_get(f, API_FACT_NAMESPACE, "a", 5, &v) && v == 2, "kept at its revision: 2");
    ok(!api_facts_get(f, API_FACT_NAMESPACE, "a", 6, &v),
       "not at a later revision (a change since)");
    ok(!api_facts_get(f, API_FACT_HAS_QUOTA, "a", 5, &v), "not for another kind of the same key");
    ok(!api_facts_get(f, API_FACT_NAMESPACE, "b", 5, &v), "not for another key");
    api_facts_put(f, API_FACT_NAMESPACE, "a", 7, 1);
    api_facts_put(f, API_FACT_NAMESPACE, "a", 6, 0); /* read before the one kept at 7 */
    ok(api_facts_get(f, API_FACT_NAMESPACE, "a", 7, &v) && v == 1,
       "an answer read at an older revision does not replace a newer one");
    char key[400];
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    api_facts_put(f, API_FACT_SERVICE_ACCOUNT, key, 1, 1);
    ok(!api_facts_get(f, API_FACT_SERVICE_ACCOUNT, key, 1, &v), "a key over 320 bytes is not kept");
    key[320] = '\0';
    api_facts_put(f, API_FACT_SERVICE_ACCOUNT, key, 1, 1);
    ok(api_facts_get(f, API_FACT_SERVICE_ACCOUNT, key, 1, &v) && v == 1,
       "one of 320 bytes (a namespace, '/', a name) is");
    api_facts_destroy(f);
    return tap_done();
}
