/* kubeconfig.c — kubeconfig YAML from a jansson tree through libyaml's
 * emitter, and credential issuance for it. */
#include "auth/kubeconfig.h"
#include "auth/tokens.h"
#include "common/buf.h"
#include "common/b64.h"
#include "common/xalloc.h"
#include "pki/pki.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

/* Would a plain scalar be read back as something other than this string?
 * (YAML 1.1 booleans and nulls, numbers, empty.) Then quote it. */
static int ambiguous(const char *s)
{
    static const char *const words[] = {"y",     "Y",     "yes",  "Yes",  "YES",  "n",    "N",
                                        "no",    "No",    "NO",   "true", "True", "TRUE", "false",
                                        "False", "FALSE", "on",   "On",   "ON",   "off",  "Off",
                                        "OFF",   "null",  "Null", "NULL", "~",    NULL};
    if (!*s)
        return 1;
    for (int i = 0; words[i]; i++)
        if (!strcmp(s, words[i]))
            return 1;
    return (*s >= '0' && *s <= '9') || *s == '+' || *s == '-' || *s == '.';
}

static int emit(yaml_emitter_t *e, yaml_event_t *ev) { return yaml_emitter_emit(e, ev) ? 0 : -1; }

static int emit_str(yaml_emitter_t *e, const char *s)
{
    yaml_event_t ev;
    yaml_scalar_style_t st = ambiguous(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, st);
    return emit(e, &ev);
}

static int emit_json(yaml_emitter_t *e, json_t *v)
{
    yaml_event_t ev;
    if (json_is_object(v)) {
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                            json_object_size(v) ? YAML_BLOCK_MAPPING_STYLE
                                                                : YAML_FLOW_MAPPING_STYLE);
        if (emit(e, &ev) < 0)
            return -1;
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            if (emit_str(e, k) < 0 || emit_json(e, x) < 0)
                return -1;
        }
        yaml_mapping_end_event_initialize(&ev);
        return emit(e, &ev);
    }
    if (json_is_array(v)) {
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if (emit(e, &ev) < 0)
            return -1;
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            if (emit_json(e, x) < 0)
                return -1;
        }
        yaml_sequence_end_event_initialize(&ev);
        return emit(e, &ev);
    }
    if (json_is_string(v))
        return emit_str(e, json_string_value(v));
    return -1; /* a kubeconfig here holds only strings */
}

static int write_cb(void *data, unsigned char *buf, size_t size)
{
    sl_buf_append(data, buf, size);
    return 1;
}

static char *b64(const char *s) { return sl_b64_encode(s, strlen(s)); }

char *sl_auth_kubeconfig_render(const sl_auth_kubeconfig_t *k, sl_error_t *err)
{
    if (!k->server || !*k->server || !k->user || !*k->user ||
        !(k->token || (k->cert_pem && k->key_pem))) {
        errno = EINVAL;
        sl_errprintf(err, "kubeconfig needs a server, a user and a credential");
        return NULL;
    }
    const char *cname = k->cluster ? k->cluster : "slurmlink";
    char *ctx = sl_xasprintf("%s@%s", k->user, cname);
    json_t *cl = json_pack("{s:s}", "server", k->server);
    if (k->ca_pem) {
        char *c = b64(k->ca_pem);
        json_object_set_new(cl, "certificate-authority-data", json_string(c));
        free(c);
    }
    json_t *user = json_object();
    if (k->token)
        json_object_set_new(user, "token", json_string(k->token));
    else {
        char *c = b64(k->cert_pem), *kk = b64(k->key_pem);
        json_object_set_new(user, "client-certificate-data", json_string(c));
        json_object_set_new(user, "client-key-data", json_string(kk));
        free(c);
        explicit_bzero(kk, strlen(kk));
        free(kk);
    }
    json_t *doc = json_pack(
        "{s:s, s:s, s:[{s:s, s:o}], s:[{s:s, s:o}], s:[{s:s, s:{s:s, s:s, s:s}}], s:s, s:{}}",
        "apiVersion", "v1", "kind", "Config", "clusters", "name", cname, "cluster", cl, "users",
        "name", k->user, "user", user, "contexts", "name", ctx, "context", "cluster", cname, "user",
        k->user, "namespace", k->ns ? k->ns : "default", "current-context", ctx, "preferences");
    free(ctx);
    if (!doc) {
        errno = EINVAL;
        sl_errprintf(err, "kubeconfig: a value is not valid UTF-8");
        return NULL;
    }

    sl_buf_t out = SL_BUF_INIT;
    yaml_emitter_t e;
    yaml_event_t ev;
    int r = -1;
    if (yaml_emitter_initialize(&e)) {
        yaml_emitter_set_output(&e, write_cb, &out);
        yaml_emitter_set_unicode(&e, 1);
        yaml_emitter_set_width(&e, -1); /* base64 data stays on one line */
        yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
        if (emit(&e, &ev) == 0) {
            yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
            if (emit(&e, &ev) == 0 && emit_json(&e, doc) == 0) {
                yaml_document_end_event_initialize(&ev, 1);
                if (emit(&e, &ev) == 0) {
                    yaml_stream_end_event_initialize(&ev);
                    r = emit(&e, &ev);
                }
            }
        }
        if (r < 0)
            sl_errprintf(err, "kubeconfig: YAML emitter: %s", e.problem ? e.problem : "failed");
        yaml_emitter_delete(&e);
    }
    json_decref(doc);
    if (r < 0) {
        errno = EINVAL;
        explicit_bzero(out.data ? out.data : (char *)"", out.len);
        sl_buf_free(&out);
        return NULL;
    }
    return sl_buf_steal(&out);
}

char *sl_auth_kubeconfig_issue(const sl_auth_issue_t *o, sl_error_t *err)
{
    sl_pki_cred_t *ca = NULL, *cred = NULL;
    char *ca_pem = NULL, *cert_pem = NULL, *key_pem = NULL, *token = NULL, *out = NULL;
    if (!o->user || !*o->user || !o->server || !o->ca_cert) {
        errno = EINVAL;
        sl_errprintf(err, "a user, a server URL and the CA certificate are needed");
        return NULL;
    }
    if (!(ca = sl_pki_load(o->ca_cert, o->token ? NULL : o->ca_key, err)))
        goto out;
    ca_pem = sl_pki_cert_pem(ca);
    sl_auth_kubeconfig_t k = {.server = o->server, .ca_pem = ca_pem, .user = o->user, .ns = o->ns};
    if (o->token) {
        if (!o->token_file) {
            errno = EINVAL;
            sl_errprintf(err, "no token file given");
            goto out;
        }
        if (!(token = sl_auth_token_generate())) {
            errno = EIO;
            sl_errprintf(err, "no random bytes for a token");
            goto out;
        }
        k.token = token;
        /* render first: the token goes into the file only if the kubeconfig
         * that carries it can be made */
        if (!(out = sl_auth_kubeconfig_render(&k, err)))
            goto out;
        long long exp = o->days > 0 ? (long long)time(NULL) + (long long)o->days * 86400 : 0;
        if (sl_auth_tokens_append(o->token_file, token, o->user, o->user, o->groups, exp, err) <
            0) {
            explicit_bzero(out, strlen(out));
            free(out);
            out = NULL;
        }
        goto out;
    }
    if (!(cred = sl_pki_issue_client(ca, o->user, o->groups, o->days, err)))
        goto out;
    cert_pem = sl_pki_cert_pem(cred);
    key_pem = sl_pki_key_pem(cred);
    k.cert_pem = cert_pem;
    k.key_pem = key_pem;
    out = sl_auth_kubeconfig_render(&k, err);
out:
    if (key_pem)
        explicit_bzero(key_pem, strlen(key_pem));
    if (token)
        explicit_bzero(token, strlen(token));
    free(key_pem);
    free(token);
    free(cert_pem);
    free(ca_pem);
    sl_pki_destroy(cred);
    sl_pki_destroy(ca);
    return out;
}
