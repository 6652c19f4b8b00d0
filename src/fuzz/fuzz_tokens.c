/* fuzz_tokens.c — libFuzzer: the token file parser (kube-apiserver's
 * --token-auth-file CSV, auth/tokens.h). An accepted file must answer
 * lookups: every token it was given finds a user with a non-empty name. */
#include "auth/authn.h"
#include "auth/tokens.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    sl_auth_tokens_t *t = sl_auth_tokens_parse(s, "tokens.csv", NULL);
    if (t) {
        /* the first field of each data line is a token: look each up */
        char *save = NULL;
        for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            while (*line == ' ')
                line++;
            if (*line == '#' || *line == '"' || !*line)
                continue;
            line[strcspn(line, ",\r")] = '\0';
            sl_auth_user_t *u = sl_auth_tokens_lookup(t, line, 1);
            if (u && (!u->name || !*u->name))
                abort();
            sl_auth_user_destroy(u);
        }
        sl_auth_user_destroy(sl_auth_tokens_lookup(t, "", 0));
        sl_auth_tokens_destroy(t);
    }
    /* the Authorization header reader on the same bytes */
    char *b = sl_authn_bearer((const char *)s);
    if (b && (!*b || strchr(b, ' ')))
        abort();
    free(b);
    free(s);
    return 0;
}
