/* err: sl_error_t keeps its text + errno contract and carries a kind and
 * field errors with kube-apiserver's texts. */
#include "common/err.h"
#include "common/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void text_and_errno(void)
{
    sl_error_t e; /* uninitialized, as text-only callers leave it */
    errno = ENOENT;
    is_int(sl_errprintf(&e, "open %s", "x"), -1, "sl_errprintf returns -1");
    is_int(errno, ENOENT, "errno kept");
    is_str(e.text, "open x", "text");
    is_int(e.kind, SL_ERR_GENERIC, "kind generic");
    errno = EACCES;
    sl_errprefix(&e, "load %d", 3);
    is_str(e.text, "load 3: open x", "prefix");
    is_int(errno, EACCES, "errno kept by prefix");
    is_int(sl_errkindf(&e, SL_ERR_NOT_FOUND, "pods %s", "p"), -1, "sl_errkindf returns -1");
    is_int(e.kind, SL_ERR_NOT_FOUND, "kind set");
    sl_errprefix(&e, "get");
    is_int(e.kind, SL_ERR_NOT_FOUND, "prefix keeps the kind");
    is_int(sl_errprintf(NULL, "x"), -1, "NULL error is fine");
    char longtext[3001];
    memset(longtext, 'v', 3000);
    longtext[3000] = '\0';
    sl_errkindf(&e, SL_ERR_BAD_REQUEST, "unable to parse requirement: %s", longtext);
    is_int((int)strlen(e.text), 29 + 3000, "a 3 KB text is kept whole");
    sl_errprefix(&e, "list");
    is_int((int)strlen(e.text), 35 + 3000, "... and its prefix");
    sl_err_field(NULL, SL_FE_REQUIRED, "a", NULL, NULL);
}

static void fields(void)
{
    sl_error_t e = SL_ERROR_INIT;
    is_int(sl_err_nfields(&e), 0, "no fields");
    char *agg = sl_err_fields_aggregate(&e);
    is_str(agg, "", "empty aggregate");
    free(agg);
    sl_err_field_none(&e, SL_FE_REQUIRED, "spec.containers[0].image", NULL);
    is_int(e.kind, SL_ERR_INVALID, "a field error makes it Invalid");
    sl_err_field(&e, SL_FE_INVALID, "metadata.name", "P\"1", "must be lowercase");
    sl_err_field_int(&e, SL_FE_INVALID, "spec.activeDeadlineSeconds", -1, "must be >= 0");
    sl_err_field_raw(&e, SL_FE_NOT_SUPPORTED, "spec.x", "true", "supported values: \"a\"");
    sl_err_field(&e, SL_FE_FORBIDDEN, "spec", "hidden", "may not change");
    sl_err_field(&e, SL_FE_DUPLICATE, "spec.containers[1].name", "c", NULL);
    sl_err_field(&e, SL_FE_DUPLICATE, "spec.containers[1].name", "c", NULL);
    sl_err_field_none(&e, SL_FE_TOO_LONG, "metadata.annotations", "may not be more than 1 bytes");
    is_int(sl_err_nfields(&e), 8, "eight field errors");
    const sl_fielderr_t *f = sl_err_fieldat(&e, 1);
    is_str(f->field, "metadata.name", "field path kept");
    is_str(sl_fe_reason(f->type), "FieldValueInvalid", "reason");
    char *body = sl_fielderr_body(f);
    is_str(body, "Invalid value: \"P\\\"1\": must be lowercase", "body quotes the value as Go %%q");
    free(body);
    ok(sl_err_fieldat(&e, 8) == NULL, "out of range is NULL");
    agg = sl_err_fields_aggregate(&e);
    is_str(agg,
           "[spec.containers[0].image: Required value, metadata.name: Invalid value: "
           "\"P\\\"1\": must be lowercase, spec.activeDeadlineSeconds: Invalid value: -1: must "
           "be >= 0, spec.x: Unsupported value: true: supported values: \"a\", spec: Forbidden: "
           "may not change, spec.containers[1].name: Duplicate value: \"c\", "
           "metadata.annotations: Too long: may not be more than 1 bytes]",
           "aggregate: kube's texts, duplicates dropped, no value where kube shows none");
    free(agg);

    sl_error_t copy = SL_ERROR_INIT;
    sl_errkindf(&copy, SL_ERR_INVALID, "copy");
    sl_err_fields_extend(&copy, &e);
    is_int(sl_err_nfields(&copy), 8, "extend copies every field error");
    sl_errprintf(&copy, "replaced");
    is_int(sl_err_nfields(&copy), 8, "a new text keeps the field errors");
    char *lines = sl_err_fields_lines(&copy);
    ok(lines && !strncmp(lines, "spec.containers[0].image: Required value\n", 41),
       "lines: one per error");
    free(lines);
    sl_error_clear(&copy);
    sl_error_clear(&e);
    is_int(sl_err_nfields(&e), 0, "clear empties");
    is_str(e.text, "", "clear empties the text");
    is_int(e.kind, SL_ERR_GENERIC, "clear resets the kind");
    sl_err_field(&e, SL_FE_REQUIRED, "again", NULL, NULL);
    is_int(sl_err_nfields(&e), 1, "usable after clear");
    sl_error_clear(&e);
    sl_error_clear(NULL);
}

/* whole texts, subjects and causes of their own */
static void edge_parts(void)
{
    sl_error_t e = SL_ERROR_INIT;
    errno = EFBIG;
    is_int(sl_errwholef(&e, SL_ERR_TOO_LARGE, "%d bytes", 9), -1, "sl_errwholef returns -1");
    is_int(errno, EFBIG, "errno kept");
    ok(e.whole && e.kind == SL_ERR_TOO_LARGE, "whole, with its kind");
    sl_errprefix(&e, "x");
    ok(e.whole, "a prefix keeps it whole");
    sl_errprintf(&e, "plain");
    ok(!e.whole, "sl_errprintf ends it");
    sl_err_subject(&e, "namespaces", NULL, NULL, "n");
    sl_err_subject(&e, "namespaces", "", NULL, "m"); /* the second replaces the first */
    ok(e.subject.set && !strcmp(e.subject.name, "m") && !e.subject.kind && !*e.subject.group,
       "a subject, NULL kept NULL");
    sl_errkindf(&e, SL_ERR_FORBIDDEN, "no");
    sl_err_cause(&e, "NamespaceTerminating", "metadata.namespace", "being terminated");
    is_int(e.kind, SL_ERR_FORBIDDEN, "a cause keeps the kind");
    char *t = sl_fielderr_text(sl_err_fieldat(&e, 0));
    is_str(t, "metadata.namespace: being terminated", "a cause's text is its message");
    free(t);
    sl_error_t d = SL_ERROR_INIT;
    sl_err_fields_extend(&d, &e);
    is_str(sl_err_fieldat(&d, 0)->reason, "NamespaceTerminating", "extend copies a cause");
    is_int(d.kind, SL_ERR_GENERIC, "... and a cause makes no error Invalid");
    sl_error_clear(&d);
    sl_error_clear(&e);
    ok(!e.subject.set && !e.subject.name, "clear frees the subject");
}

/* the validators' shorthands: a formatted field path, kube's texts */
static void shorthands(void)
{
    sl_error_t *e = sl_error_new_invalid();
    is_int(e->kind, SL_ERR_INVALID, "a new invalid error is of kind Invalid");
    is_int((int)sl_err_nfields(e), 0, "... with no field errors");
    sl_err_required(e, "must be set", "spec.containers[%d].image", 2);
    sl_err_forbidden(e, "may not be set", "spec.%s", "nodeName");
    sl_err_invalid(e, "x y", "a DNS-1123 label", "metadata.%s", "name");
    sl_err_duplicate(e, "c", "spec.containers[%d].name", 1);
    sl_err_not_found(e, "v", "spec.volumes[%d]", 0);
    static const char *const ok_values[] = {"Always", "Never", NULL};
    sl_err_not_supported(e, "Sometimes", ok_values, "spec.%s", "restartPolicy");
    sl_err_invalid(NULL, "v", NULL, "ignored"); /* NULL: nothing happens */
    char *lines = sl_err_fields_lines(e);
    is_str(lines,
           "spec.containers[2].image: Required value: must be set\n"
           "spec.nodeName: Forbidden: may not be set\n"
           "metadata.name: Invalid value: \"x y\": a DNS-1123 label\n"
           "spec.containers[1].name: Duplicate value: \"c\"\n"
           "spec.volumes[0]: Not found: \"v\"\n"
           "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
           "\"Never\"\n",
           "each shorthand's text, its path formatted");
    free(lines);
    sl_error_free(e);
    sl_error_free(NULL);
    ok(1, "sl_error_free frees it (and NULL is a no-op)");
}

int main(void)
{
    tap_plan(43);
    text_and_errno();
    fields();
    edge_parts();
    shorthands();
    return tap_done();
}
