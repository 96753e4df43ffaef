/* report_redact.c - the one redaction of a report on its way to be shared
 * (the markdown summary, `--html --redact`): the words redact_text
 * (src/snapshot/snapshot_redact.c) hides, and the whole parsed document
 * passed through it for the HTML page, which shows every fact. */
#include "report_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static char short_host[256]; /* the first label of a full host name */

size_t report_redact_words(const struct diff_doc *d, struct redact_word w[REPORT_REDACT_WORDS])
{
    size_t n = 0;
    /* the host's name and the user's, unless it is root (a name every
     * machine has) */
    const char *host = doc_host(d, "hostname"), *user = doc_str(d, "user.name");
    if (host)
        w[n++] = (struct redact_word){host, "<host>", 1};
    /* a full name (grace.corp.example.org) hides its first label too */
    const char *dot = host ? strchr(host, '.') : NULL;
    if (dot && dot - host >= 2 && (size_t)(dot - host) < sizeof(short_host)) {
        snprintf(short_host, sizeof(short_host), "%.*s", (int)(dot - host), host);
        w[n++] = (struct redact_word){short_host, "<host>", 1};
    }
    if (user && strcmp(user, "root"))
        w[n++] = (struct redact_word){user, "<user>", 0};
    /* a board serial names one machine as well as its host name does */
    for (int i = 0; i < DOC_GPUS_REDACTED; i++) {
        char name[32];
        snprintf(name, sizeof(name), "gpu.%d.serial", i);
        const char *s = doc_str(d, name);
        if (s && strlen(s) >= 4) /* a short one would cut ordinary words */
            w[n++] = (struct redact_word){s, "<serial>", 0};
    }
    return n;
}

/* values that name the report's structure, never the machine's people */
static int structural(const char *key)
{
    static const char *const keys[] = {"id", "status", "schema", "start_with", "caused_by", "rule"};
    for (size_t i = 0; key && i < ARRAY_SIZE(keys); i++)
        if (!strcmp(key, keys[i]))
            return 1;
    return 0;
}

static void redact_value(struct json *j, const struct redact_word *w, size_t nw)
{
    if (j->type == JSON_STR) {
        char *r = redact_text(j->str, w, nw);
        free(j->str); /* the document owns each string */
        j->str = r;
        return;
    }
    for (size_t i = 0; (j->type == JSON_ARR || j->type == JSON_OBJ) && i < j->n; i++)
        if (!(j->type == JSON_OBJ && structural(j->keys[i])))
            redact_value(j->items[i], w, nw);
}

void report_doc_redact(const struct diff_doc *d, struct strlist *kept)
{
    struct redact_word w[REPORT_REDACT_WORDS];
    size_t nw = report_redact_words(d, w);
    /* the words point into the document that is about to change */
    for (size_t i = 0; i < nw; i++) {
        char *copy = xstrdup(w[i].word);
        strlist_add_owned(kept, copy);
        w[i].word = copy;
    }
    redact_value(d->root, w, nw);
}
