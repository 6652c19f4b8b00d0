/* kubeconfig.h — issue credentials and write them as a kubeconfig.
 *
 * sl_auth_kubeconfig_render() writes the YAML text of a kubeconfig with one
 * cluster, one user and one context (libyaml's emitter: every value is
 * escaped by it, and values YAML would read as numbers or booleans are
 * quoted). sl_auth_kubeconfig_issue() makes the credential first: a client
 * certificate signed by the cluster CA, or a new token appended to the token
 * file. `slurmlink kubeconfig` and `slurmlink up` call these.
 */
#ifndef SL_AUTH_KUBECONFIG_H
#define SL_AUTH_KUBECONFIG_H

#include "common/err.h"

typedef struct sl_auth_kubeconfig {
    const char *server;  /* "https://127.0.0.1:6443" (required) */
    const char *ca_pem;  /* certificate-authority-data (NULL: none) */
    const char *cluster; /* cluster entry name (NULL: "slurmlink") */
    const char *user;    /* user entry name (required) */
    const char *ns;      /* the context's namespace (NULL: "default") */
    /* the credential: a certificate and key, or a token */
    const char *cert_pem, *key_pem;
    const char *token;
} sl_auth_kubeconfig_t;

/* YAML text (caller frees), or NULL with err (EINVAL: missing field). */
char *sl_auth_kubeconfig_render(const sl_auth_kubeconfig_t *k, sl_error_t *err);

typedef struct sl_auth_issue {
    const char *ca_cert, *ca_key; /* the cluster CA's files (the key only for certificates) */
    const char *token_file;       /* for tokens: appended to, created 0600 */
    const char *server;           /* the API URL for the kubeconfig */
    const char *user;
    const char *const *groups; /* NULL-terminated; may be NULL */
    const char *ns;            /* context namespace (NULL: "default") */
    int token;                 /* 1: bearer token; 0: client certificate */
    int days;                  /* validity; 0: certificates 365 days, tokens never expire */
} sl_auth_issue_t;

/* Issue the credential and return the kubeconfig text (caller frees), or
 * NULL with err. Nothing is appended to the token file if it fails. */
char *sl_auth_kubeconfig_issue(const sl_auth_issue_t *o, sl_error_t *err);

#endif
