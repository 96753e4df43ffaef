/* doc_read.c - reading a JSON report (schema rocm-vla-doctor/1) with the
 * strict parser of src/core/json.c, for every command that reads one
 * (report, diff, fleet): anything that is not a well-formed report is
 * rejected with a message naming the file, never half-read. */
#include "doc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static const char *const statuses[] = {"pass", "warn", "fail", "skip", "error", "timeout"};

/* "unexpected character at byte 17" -> "line 2, column 5 (byte 17): unexpected character" */
static void json_error(const char *name, const char *text, size_t len, const char *err)
{
    const char *at = strstr(err, " at byte ");
    if (!at) {
        error("%s: invalid JSON: %s", name, err);
        return;
    }
    size_t off = strtoul(at + 9, NULL, 10), line = 1, col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    error("%s: invalid JSON at line %zu, column %zu (byte %zu): %.*s", name, line, col, off,
          (int)(at - err), err);
}

static int is_status(const char *s)
{
    for (size_t i = 0; i < ARRAY_SIZE(statuses); i++)
        if (strcmp(s, statuses[i]) == 0)
            return 1;
    return 0;
}

/* an optional reference to a check: absent, null or the id of a check */
static int bad_ref(const struct diff_doc *d, const struct json *v)
{
    if (!v || v->type == JSON_NULL)
        return 0;
    return v->type != JSON_STR || !strset_get(&d->check_ids, v->str, NULL);
}

static int validate(struct diff_doc *d)
{
    const struct json *r = d->root;
    if (r->type != JSON_OBJ)
        return error("%s: not a rocm-vla-doctor report (the document is not a JSON object)",
                     d->name);
    const struct json *schema = json_get(r, "schema");
    if (!schema || schema->type != JSON_STR)
        return error("%s: not a rocm-vla-doctor report (no \"schema\" string)", d->name);
    if (strcmp(schema->str, DIFF_SCHEMA_IN) != 0) {
        if (str_starts(schema->str, "rocm-vla-doctor/"))
            return error("%s: report schema '%s' is not supported: this build compares "
                         "%s reports",
                         d->name, schema->str, DIFF_SCHEMA_IN);
        return error("%s: not a rocm-vla-doctor report (schema '%s')", d->name, schema->str);
    }
    d->facts = json_get(r, "facts");
    if (!d->facts || d->facts->type != JSON_OBJ)
        return error("%s: invalid report: \"facts\" is missing or not an object", d->name);
    d->meta = json_get(r, "facts_meta");
    if (d->meta && d->meta->type != JSON_OBJ)
        d->meta = NULL;
    d->checks = json_get(r, "checks");
    if (!d->checks || d->checks->type != JSON_ARR)
        return error("%s: invalid report: \"checks\" is missing or not an array", d->name);
    for (size_t i = 0; i < d->checks->n; i++) {
        const struct json *c = d->checks->items[i];
        const struct json *id = json_get(c, "id"), *st = json_get(c, "status");
        if (!id || id->type != JSON_STR || !id->str[0])
            return error("%s: invalid report: checks[%zu] has no \"id\" string", d->name, i);
        if (!st || st->type != JSON_STR || !is_status(st->str))
            return error("%s: invalid report: check '%s' has no valid \"status\"", d->name,
                         id->str);
        const struct json *rank = json_get(c, "fix_rank");
        if (rank && rank->type != JSON_NULL && (rank->type != JSON_NUM || !(rank->num >= 1)))
            return error("%s: invalid report: check '%s' has a \"fix_rank\" that is not a "
                         "number from 1",
                         d->name, id->str);
        /* a hash set: a report of 20k checks validates in linear time */
        if (!strset_add(&d->check_ids, id->str, i))
            return error("%s: invalid report: check '%s' appears twice", d->name, id->str);
    }
    /* the cause relation names checks of this report, or nothing */
    for (size_t i = 0; i < d->checks->n; i++)
        if (bad_ref(d, json_get(d->checks->items[i], "caused_by")))
            return error("%s: invalid report: check '%s' has a \"caused_by\" that names no "
                         "check of the report",
                         d->name, doc_member(d->checks->items[i], "id"));
    if (bad_ref(d, json_get(r, "start_with")))
        return error("%s: invalid report: \"start_with\" names no check of the report", d->name);
    return 0;
}

int diff_doc_parse(struct diff_doc *d, const char *name, const char *text, size_t len)
{
    memset(d, 0, sizeof(*d));
    d->name = xstrdup(name);
    char err[256];
    if (len == 0) {
        error("%s: empty file, not a JSON report", name);
        goto fail;
    }
    d->text = xmalloc(len + 1);
    memcpy(d->text, text, len);
    d->text[len] = 0;
    d->root = json_parse(d->text, len, err, sizeof(err));
    if (!d->root) {
        json_error(name, text, len, err);
        goto fail;
    }
    if (validate(d))
        goto fail;
    return 0;
fail:
    diff_doc_release(d);
    return -1;
}

int diff_doc_read(const char *path, char **text, size_t *len)
{
    int rc = read_user_file(path, DIFF_MAX_REPORT, text, len);
    if (rc == -EFBIG)
        return error("%s: larger than %u MiB, not a report", path, DIFF_MAX_REPORT >> 20);
    if (rc)
        return error("cannot read report '%s': %s", path, user_file_strerror(rc));
    return 0;
}

int diff_doc_load(struct diff_doc *d, const char *path)
{
    memset(d, 0, sizeof(*d));
    char *text;
    size_t len;
    if (diff_doc_read(path, &text, &len))
        return -1;
    int rc = diff_doc_parse(d, path, text, len);
    free(text);
    return rc;
}

void diff_doc_release(struct diff_doc *d)
{
    strset_release(&d->check_ids);
    json_free(d->root);
    free(d->text);
    free(d->name);
    memset(d, 0, sizeof(*d));
}

const char *diff_check_status(const struct json *check)
{
    const struct json *st = check ? json_get(check, "status") : NULL;
    return st && st->type == JSON_STR ? st->str : NULL;
}

const char *diff_fact_reason(const struct diff_doc *d, const char *name)
{
    const struct json *m = d && d->meta ? json_get(d->meta, name) : NULL;
    const struct json *reason = m ? json_get(m, "reason") : NULL;
    return reason && reason->type == JSON_STR ? reason->str : NULL;
}

void diff_value_text(struct strbuf *sb, const struct json *v)
{
    switch (v->type) {
    case JSON_NULL:
        strbuf_adds(sb, "unknown");
        break;
    case JSON_BOOL:
        strbuf_adds(sb, v->b ? "true" : "false");
        break;
    case JSON_NUM:
        if (v->num_len <= 12)
            strbuf_add(sb, v->num_text, v->num_len);
        else
            strbuf_addf(sb, "%.6g", v->num);
        break;
    case JSON_STR:
        strbuf_addf(sb, "'%s'", v->str);
        break;
    case JSON_ARR:
    case JSON_OBJ:
        strbuf_addc(sb, '[');
        for (size_t i = 0; i < v->n && sb->len < DIFF_VALUE_MAX; i++) {
            if (i)
                strbuf_adds(sb, ", ");
            if (v->items[i]->type == JSON_STR)
                strbuf_adds(sb, v->items[i]->str);
            else
                diff_value_text(sb, v->items[i]);
        }
        strbuf_addc(sb, ']');
        break;
    }
}
