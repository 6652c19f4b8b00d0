/* decode.h — request bodies as kube-apiserver decodes them (decode.c):
 * JSON or YAML, apiVersion and kind, strict field validation. */
#ifndef SL_API_DECODE_H
#define SL_API_DECODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/http/request.h"
#include "common/err.h"

/* --- decode.c: request bodies as kube-apiserver decodes them --- */
/* Parse the body (JSON, or YAML for application/yaml) into an object for
 * resource res: checks apiVersion/kind (filled in when absent) and runs the
 * kind's strict decoding per the fieldValidation parameter. NULL with err
 * on failure (its Status: api_error_status(res, NULL, err)); err must
 * start as SL_ERROR_INIT and be cleared. */
json_t *api_decode_object(api_req_t *r, const api_resource_t *res, json_t *old, sl_error_t *err);
/* Parse a body as JSON (or YAML) without any kind checks; NULL with err
 * (SL_ERR_BAD_REQUEST) on a syntax error worded like Go's encoding/json. */
json_t *api_parse_body(const char *data, size_t len, bool yaml, sl_error_t *err);
/* The options kind of a write, for their 422s: CreateOptions (POST),
 * UpdateOptions (PUT), PatchOptions (PATCH). */
const char *api_options_kind(const api_req_t *r);
/* err (field errors) is about the request's options (api_options_kind):
 * its subject, for the 422 on them. */
void api_options_subject(const api_req_t *r, sl_error_t *err);
/* Strict/Warn/Ignore for this request; NULL with the field error in err
 * (about the options) when the parameter has an unsupported value. */
const char *api_field_validation(api_req_t *r, sl_error_t *err);
/* Run res's decode_check on obj and apply the fieldValidation directive.
 * -1 with a BadRequest err on a strict error. old, the stored object of an
 * update (NULL on create): warnings it draws too (an ignored field the
 * server set, such as spec.nodeName) are not repeated, as kube-apiserver
 * warns on update only about what the update brings. */
int api_check_fields(api_req_t *r, const api_resource_t *res, json_t *obj, json_t *old,
                     const char *directive, sl_error_t *err);

#endif
