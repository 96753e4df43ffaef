/* checks_peaks.c - the `peaks:` table of checks.yaml (see peaks.h). Strict
 * like the rest of the loader: every key known, every figure a positive
 * number, each row with its source, so a typo is exit 2 at load time rather
 * than a derived peak that is silently missing. */
#include "peaks.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int perr(const char *file, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(const char *file, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s:%lu:%lu: %s\n", file, n ? (unsigned long)n->start_mark.line + 1 : 0,
            n ? (unsigned long)n->start_mark.column + 1 : 0, msg);
    return -1;
}

static const char *scalar_of(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* "gfx" followed by hex digits, or "sm_" followed by digits and an optional
 * "a" (sm_90a) */
static int valid_arch(const char *s)
{
    size_t n = strlen(s);
    if (str_starts(s, "gfx") && n > 3 && n <= 10)
        return strspn(s + 3, "0123456789abcdef") == n - 3;
    if (str_starts(s, "sm_") && n > 3 && n <= 8) {
        size_t d = strspn(s + 3, "0123456789");
        return d > 0 && (3 + d == n || (3 + d + 1 == n && s[n - 1] == 'a'));
    }
    return 0;
}

static const char *const number_keys[] = {"fp16_matrix", "bf16_matrix", "fp32_vector",
                                          "mem_transfers_per_clock"};

static double *number_slot(struct peak_arch *a, size_t i)
{
    double *slots[] = {&a->fp16_matrix, &a->bf16_matrix, &a->fp32_vector,
                       &a->mem_transfers_per_clock};
    return slots[i];
}

static int parse_row(yaml_document_t *doc, yaml_node_t *n, const char *file, struct peak_arch *a)
{
    memset(a, 0, sizeof(*a));
    a->line = (unsigned long)n->start_mark.line + 1;
    if (n->type != YAML_MAPPING_NODE)
        return perr(file, n, "a peaks entry must be a mapping (arch, source, figures)");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        const char *key = scalar_of(k), *val = scalar_of(v);
        if (!key)
            return perr(file, k, "peaks keys must be strings");
        char **str = strcmp(key, "arch") == 0     ? &a->arch
                     : strcmp(key, "name") == 0   ? &a->name
                     : strcmp(key, "memory") == 0 ? &a->memory
                     : strcmp(key, "source") == 0 ? &a->source
                                                  : NULL;
        if (str) {
            if (!val || !*val)
                return perr(file, v, "peaks '%s' must be a non-empty string", key);
            *str = xstrdup(val);
            continue;
        }
        size_t i = 0;
        while (i < ARRAY_SIZE(number_keys) && strcmp(key, number_keys[i]) != 0)
            i++;
        if (i == ARRAY_SIZE(number_keys))
            return perr(file, k,
                        "unknown key '%s' in peaks (arch, name, memory, source, fp16_matrix, "
                        "bf16_matrix, fp32_vector, mem_transfers_per_clock)",
                        key);
        double d;
        if (!val || str_parse_double(val, &d) || !isfinite(d) || d <= 0 || d > 1e6)
            return perr(file, v, "peaks '%s' must be a positive number (at most 1e6), not '%s'",
                        key, val ? val : "a list or mapping");
        *number_slot(a, i) = d;
    }
    if (!a->arch)
        return perr(file, n, "peaks entry has no 'arch'");
    if (!valid_arch(a->arch))
        return perr(file, n, "peaks arch '%s' must be gfxNNN or sm_NN", a->arch);
    if (!a->source)
        return perr(file, n, "peaks entry %s has no 'source'", a->arch);
    return 0;
}

static void row_release(struct peak_arch *a)
{
    free(a->arch);
    free(a->name);
    free(a->memory);
    free(a->source);
}

int peaks_parse(yaml_document_t *doc, yaml_node_t *n, const char *file, struct peak_table *t)
{
    memset(t, 0, sizeof(*t));
    if (n->type != YAML_SEQUENCE_NODE)
        return perr(file, n, "'peaks' must be a list of architectures");
    size_t cap = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    t->v = xcalloc(cap ? cap : 1, sizeof(*t->v));
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        yaml_node_t *row = yaml_document_get_node(doc, *it);
        struct peak_arch *a = &t->v[t->n++];
        if (parse_row(doc, row, file, a)) {
            peaks_release(t);
            return -1;
        }
        for (size_t j = 0; j + 1 < t->n; j++)
            if (strcmp(t->v[j].arch, a->arch) == 0) {
                perr(file, row, "peaks arch '%s' listed twice (first at line %lu)", a->arch,
                     t->v[j].line);
                peaks_release(t);
                return -1;
            }
    }
    return 0;
}

const struct peak_arch *peaks_find(const struct peak_table *t, const char *arch)
{
    if (!arch)
        return NULL;
    const char *s = strstr(arch, "--"); /* amdgcn-amd-amdhsa--gfx90a */
    s = s ? s + 2 : arch;
    size_t n = strcspn(s, ":");
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->v[i].arch) == n && strncmp(t->v[i].arch, s, n) == 0)
            return &t->v[i];
    return NULL;
}

void peaks_release(struct peak_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        row_release(&t->v[i]);
    free(t->v);
    memset(t, 0, sizeof(*t));
}
