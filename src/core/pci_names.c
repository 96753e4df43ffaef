/* pci_names.c - see pci_names.h. */
#include "pci_names.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rootfs.h"
#include "util.h"

#ifdef RVD_HAVE_LIBPCI
#include <pci/pci.h>
#endif

/* one line of the excerpt: a vendor (kind 0), a device (1) or a
 * subsystem (2) of a device */
struct ids_line {
    int kind;
    unsigned v, d, sv, sd;
    char *name;
};

struct pci_names {
    char why[PCI_NAMES_WHY_MAX]; /* non-empty: every lookup is unknown */
    char source[128];            /* the pci.ids path under the root */
#ifdef RVD_HAVE_LIBPCI
    struct pci_access *pacc;
#endif
    struct ids_line *lines;
    size_t n, cap;
};

const char *pci_names_source(const struct pci_names *pn)
{
    return pn->source;
}

static int unknown(const struct pci_names *pn, const char *what, char *why, size_t why_len)
{
    if (pn->why[0])
        snprintf(why, why_len, "%s", pn->why);
    else
        snprintf(why, why_len, "%s is not in %s", what, pn->source);
    return -ENOENT;
}

#ifndef RVD_HAVE_LIBPCI

struct pci_names *pci_names_open(void)
{
    struct pci_names *pn = xcalloc(1, sizeof(*pn));
    snprintf(pn->why, sizeof(pn->why), "built without libpci (libpci-dev was not installed)");
    return pn;
}

int pci_names_device(struct pci_names *pn, unsigned vendor, unsigned device, char **out, char *why,
                     size_t why_len)
{
    (void)vendor, (void)device, (void)out;
    return unknown(pn, "", why, why_len);
}

int pci_names_board(struct pci_names *pn, unsigned vendor, unsigned device, unsigned subvendor,
                    unsigned subdevice, char **out, char *why, size_t why_len)
{
    (void)vendor, (void)device, (void)subvendor, (void)subdevice, (void)out;
    return unknown(pn, "", why, why_len);
}

void pci_names_close(struct pci_names *pn)
{
    free(pn);
}

#else

/* libpci reports a file it cannot open or parse through warning(); the
 * first such message becomes the reason of every lookup */
static char lib_msg[PCI_NAMES_WHY_MAX];

static void PCI_PRINTF(1, 2) lib_warning(char *msg, ...)
{
    if (lib_msg[0])
        return;
    va_list ap;
    va_start(ap, msg);
    vsnprintf(lib_msg, sizeof(lib_msg), msg, ap);
    va_end(ap);
}

static void PCI_PRINTF(1, 2) lib_debug(char *msg, ...)
{
    (void)msg;
}

/* libpci calls its error hook, which must not return, for a pci.ids it
 * cannot parse ("Parse error at ..., line N"; it has closed the file by
 * then): while the list loads that is a fact's reason, not the end of the
 * run (issue 30), so the hook jumps back to pci_names_open. Elsewhere only
 * an allocation failure reaches it. */
static sigjmp_buf lib_load_jmp;
static int lib_loading;

static void PCI_PRINTF(1, 2) PCI_NONRET lib_error(char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    if (lib_loading) {
        vsnprintf(lib_msg, sizeof(lib_msg), msg, ap);
        va_end(ap);
        lib_msg[strcspn(lib_msg, "\n")] = '\0';
        siglongjmp(lib_load_jmp, 1);
    }
    fputs("rocm-vla-doctor: libpci: ", stderr);
    vfprintf(stderr, msg, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

struct pci_names *pci_names_open(void)
{
    static const char *const paths[] = {PCI_NAMES_PATHS};
    struct pci_names *pn = xcalloc(1, sizeof(*pn));
    char *host = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(paths) && !host; i++) {
        struct stat st;
        if (rootfs_host_path(paths[i], &host))
            continue;
        if (stat(host, &st) == 0 && S_ISREG(st.st_mode))
            snprintf(pn->source, sizeof(pn->source), "%s", paths[i]);
        else
            free(host), host = NULL;
    }
    if (!host) {
        snprintf(pn->why, sizeof(pn->why), "no pci.ids under the root (%s)",
                 "/usr/share/misc, /usr/share/hwdata, /usr/share");
        return pn;
    }
    pn->pacc = pci_alloc();
    pn->pacc->error = lib_error;
    pn->pacc->warning = lib_warning;
    pn->pacc->debug = lib_debug;
    /* never the user's ~/.pciids-cache, DNS or udev's hwdb: the names come
     * from the root's file alone, so a replay names the GPUs alike */
    pn->pacc->id_lookup_mode = 0;
    pci_set_name_list_path(pn->pacc, host, 1);
    lib_msg[0] = '\0';
    volatile int loaded = 0;
    lib_loading = 1;
    if (sigsetjmp(lib_load_jmp, 0) == 0)
        loaded = pci_load_name_list(pn->pacc);
    else /* refused mid-parse: the half-built list goes with the context */
        lib_msg[sizeof(lib_msg) - 1] = '\0';
    lib_loading = 0;
    if (!loaded) {
        /* built on the heap, then cut to the reason's size: a path and a
         * message may be longer together than the reason holds */
        /* libpci names the file by its host path; the reason names it
         * as the root has it */
        const char *at = strstr(lib_msg, host);
        char *why = at ? xasprintf("libpci cannot read %s: %.*s%s%s", pn->source,
                                   (int)(at - lib_msg), lib_msg, pn->source, at + strlen(host))
                       : xasprintf("libpci cannot read %s: %s", pn->source,
                                   lib_msg[0] ? lib_msg : "no reason given");
        snprintf(pn->why, sizeof(pn->why), "%s", why);
        free(why);
    }
    return pn;
}

static void remember(struct pci_names *pn, int kind, unsigned v, unsigned d, unsigned sv,
                     unsigned sd, const char *name)
{
    if (pn->n == pn->cap) {
        pn->cap = pn->cap ? 2 * pn->cap : 8;
        pn->lines = xrealloc(pn->lines, pn->cap * sizeof(*pn->lines));
    }
    pn->lines[pn->n++] = (struct ids_line){kind, v, d, sv, sd, xstrdup(name)};
}

#define LOOKUP_FLAGS (PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB)

/* the vendor's line too: a device line means nothing without it */
static void remember_vendor(struct pci_names *pn, unsigned v, int sub)
{
    char buf[256];
    const char *name =
        pci_lookup_name(pn->pacc, buf, sizeof(buf),
                        LOOKUP_FLAGS | PCI_LOOKUP_VENDOR | (sub ? PCI_LOOKUP_SUBSYSTEM : 0), v);
    if (name)
        remember(pn, 0, v, 0, 0, 0, name);
}

int pci_names_device(struct pci_names *pn, unsigned vendor, unsigned device, char **out, char *why,
                     size_t why_len)
{
    char what[48], buf[256];
    snprintf(what, sizeof(what), "device %04x:%04x", vendor, device);
    if (pn->why[0])
        return unknown(pn, what, why, why_len);
    const char *name = pci_lookup_name(pn->pacc, buf, sizeof(buf), LOOKUP_FLAGS | PCI_LOOKUP_DEVICE,
                                       vendor, device);
    if (!name || !*name)
        return unknown(pn, what, why, why_len);
    remember_vendor(pn, vendor, 0);
    remember(pn, 1, vendor, device, 0, 0, name);
    *out = xstrdup(name);
    return 0;
}

int pci_names_board(struct pci_names *pn, unsigned vendor, unsigned device, unsigned subvendor,
                    unsigned subdevice, char **out, char *why, size_t why_len)
{
    char what[64], buf[256];
    snprintf(what, sizeof(what), "subsystem %04x:%04x of %04x:%04x", subvendor, subdevice, vendor,
             device);
    if (pn->why[0])
        return unknown(pn, what, why, why_len);
    char *dev;
    /* a subsystem line is only found under its device's line */
    if (pci_names_device(pn, vendor, device, &dev, why, why_len))
        return unknown(pn, what, why, why_len);
    free(dev);
    /* libpci answers the device's own name for a subsystem equal to the
     * device; that names no board */
    const char *name =
        subvendor == vendor && subdevice == device
            ? NULL
            : pci_lookup_name(pn->pacc, buf, sizeof(buf),
                              LOOKUP_FLAGS | PCI_LOOKUP_SUBSYSTEM | PCI_LOOKUP_DEVICE, vendor,
                              device, subvendor, subdevice);
    if (!name || !*name)
        return unknown(pn, what, why, why_len);
    remember(pn, 2, vendor, device, subvendor, subdevice, name);
    remember_vendor(pn, subvendor, 1);
    *out = xstrdup(name);
    return 0;
}

/* pci.ids order: a vendor, its devices, each device's subsystems */
static int line_cmp(const void *pa, const void *pb)
{
    const struct ids_line *a = pa, *b = pb;
    unsigned ka[] = {a->v, a->kind > 0, a->d, a->kind > 1, a->sv, a->sd};
    unsigned kb[] = {b->v, b->kind > 0, b->d, b->kind > 1, b->sv, b->sd};
    for (size_t i = 0; i < ARRAY_SIZE(ka); i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void stage_excerpt(struct pci_names *pn)
{
    if (!pn->n)
        return;
    qsort(pn->lines, pn->n, sizeof(*pn->lines), line_cmp);
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb,
                "# the lines of %s that rocm-vla-doctor collect looked up for this machine's "
                "GPUs\n",
                pn->source);
    for (size_t i = 0; i < pn->n; i++) {
        const struct ids_line *l = &pn->lines[i];
        if (i && line_cmp(l, &pn->lines[i - 1]) == 0)
            continue; /* libpci refuses a duplicate entry */
        if (l->kind == 0)
            strbuf_addf(&sb, "%04x  %s\n", l->v, l->name);
        else if (l->kind == 1)
            strbuf_addf(&sb, "\t%04x  %s\n", l->d, l->name);
        else
            strbuf_addf(&sb, "\t\t%04x %04x  %s\n", l->sv, l->sd, l->name);
    }
    rootfs_record_text(pn->source, sb.buf, sb.len);
    strbuf_release(&sb);
}

void pci_names_close(struct pci_names *pn)
{
    if (pn->pacc) {
        stage_excerpt(pn);
        pci_cleanup(pn->pacc);
    }
    for (size_t i = 0; i < pn->n; i++)
        free(pn->lines[i].name);
    free(pn->lines);
    free(pn);
}

#endif
