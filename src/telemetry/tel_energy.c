/* tel_energy.c - see tel_energy.h. */
#include "tel_energy.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/rootfs.h"
#include "../core/util.h"
#include "gpu_metrics.h"
#include "tel_nvml.h"

#define SAMPLE_MS 10

enum kind { NONE, NVML_COUNTER, HWMON_COUNTER, METRICS_COUNTER, NVML_POWER, HWMON_POWER };

struct tel_energy {
    enum kind kind;
    struct tel_nvml *nvml;
    int dev;
    char hwmon[160]; /* the GPU's hwmon directory */
    char metrics[96];
    const char *power_file;
    double start_j, t0;
    char why[256];
    /* the integrating thread */
    pthread_t th;
    int running;
    pthread_mutex_t mu;
    int stop;
    double joules, last_w, last_t, first_t;
    int samples, failed;
};

static int hwmon_dir(const char *pci, char *out, size_t n)
{
    struct strlist names = STRLIST_INIT;
    char dir[96];
    snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s/hwmon", pci);
    int rc = rootfs_list(dir, &names);
    int found = -1;
    for (size_t i = 0; !rc && i < names.n && found; i++)
        if (str_starts(names.v[i], "hwmon")) {
            snprintf(out, n, "%s/%s", dir, names.v[i]);
            found = 0;
        }
    strlist_release(&names);
    return found;
}

static int read_counter(struct tel_energy *e, double *j)
{
    uint64_t v;
    if (e->kind == NVML_COUNTER) {
        unsigned long long mj;
        if (tel_nvml_energy_mj(e->nvml, (size_t)e->dev, &mj) != 0)
            return -1;
        *j = (double)mj * 1e-3;
        return 0;
    }
    if (e->kind == HWMON_COUNTER) {
        if (rootfs_readf_u64(&v, "%s/energy1_input", e->hwmon))
            return -1;
        *j = (double)v * 1e-6;
        return 0;
    }
    if (e->kind == METRICS_COUNTER) {
        char *buf;
        size_t len;
        struct gpu_metrics m;
        char why[128];
        if (rootfs_read(e->metrics, &buf, &len))
            return -1;
        int rc = gpu_metrics_parse(buf, len, &m, why, sizeof(why));
        free(buf);
        if (rc || !m.known[GM_ENERGY_J])
            return -1;
        *j = m.v[GM_ENERGY_J];
        return 0;
    }
    return -1;
}

static int read_power(struct tel_energy *e, double *w)
{
    if (e->kind == NVML_POWER) {
        unsigned mw;
        if (tel_nvml_power_mw(e->nvml, (size_t)e->dev, &mw) != 0)
            return -1;
        *w = mw * 1e-3;
        return 0;
    }
    uint64_t uw;
    if (rootfs_readf_u64(&uw, "%s/%s", e->hwmon, e->power_file))
        return -1;
    *w = (double)uw * 1e-6;
    return 0;
}

/* trapezoids between power samples every SAMPLE_MS */
static void *integrate(void *arg)
{
    struct tel_energy *e = arg;
    for (;;) {
        struct timespec ts = {0, SAMPLE_MS * 1000000L};
        nanosleep(&ts, NULL);
        double w, t = util_mono_s();
        int ok = read_power(e, &w) == 0;
        pthread_mutex_lock(&e->mu);
        if (ok) {
            if (e->samples)
                e->joules += (w + e->last_w) / 2 * (t - e->last_t);
            e->last_w = w;
            e->last_t = t;
            e->samples++;
        } else {
            e->failed++;
        }
        int stop = e->stop;
        pthread_mutex_unlock(&e->mu);
        if (stop)
            return NULL;
    }
}

static void start_thread(struct tel_energy *e)
{
    double w;
    if (read_power(e, &w)) {
        snprintf(e->why + strlen(e->why), sizeof(e->why) - strlen(e->why),
                 "; no power reading either");
        e->kind = NONE;
        return;
    }
    pthread_mutex_init(&e->mu, NULL);
    e->last_w = w;
    e->last_t = e->first_t = util_mono_s();
    e->samples = 1;
    if (pthread_create(&e->th, NULL, integrate, e) == 0) {
        e->running = 1;
    } else {
        snprintf(e->why, sizeof(e->why), "cannot start the power sampling thread");
        e->kind = NONE;
    }
}

struct tel_energy *tel_energy_start(const char *backend, const char *pci)
{
    struct tel_energy *e = xcalloc(1, sizeof(*e));
    e->t0 = util_mono_s();
    if (backend && !strcmp(backend, "cuda")) {
        const char *st;
        e->nvml = tel_nvml_open(&st);
        e->dev = e->nvml ? tel_nvml_find(e->nvml, pci) : -1;
        if (e->dev < 0) {
            snprintf(e->why, sizeof(e->why), "NVML: %s%s%s", e->nvml ? "no device at PCI " : st,
                     e->nvml ? pci : "", "");
            return e;
        }
        e->kind = NVML_COUNTER;
        if (read_counter(e, &e->start_j) == 0)
            return e;
        snprintf(e->why, sizeof(e->why), "nvmlDeviceGetTotalEnergyConsumption unsupported");
        e->kind = NVML_POWER;
        start_thread(e);
        return e;
    }
    if (!backend || strcmp(backend, "hip") || !pci || !*pci) {
        snprintf(e->why, sizeof(e->why), "no GPU energy counter for the %s backend%s",
                 backend ? backend : "?", pci && *pci ? "" : " (no PCI address)");
        return e;
    }
    int have_hwmon = hwmon_dir(pci, e->hwmon, sizeof(e->hwmon)) == 0;
    snprintf(e->metrics, sizeof(e->metrics), "/sys/bus/pci/devices/%s/gpu_metrics", pci);
    if (have_hwmon) {
        e->kind = HWMON_COUNTER;
        if (read_counter(e, &e->start_j) == 0)
            return e;
    }
    e->kind = METRICS_COUNTER;
    if (read_counter(e, &e->start_j) == 0)
        return e;
    snprintf(e->why, sizeof(e->why), "no energy1_input in hwmon, no energy accumulator in %s",
             e->metrics);
    if (!have_hwmon) {
        e->kind = NONE;
        return e;
    }
    /* power1_average on most cards, power1_input on RDNA3 and newer */
    uint64_t v;
    e->power_file = rootfs_readf_u64(&v, "%s/power1_average", e->hwmon) == 0 ? "power1_average"
                                                                             : "power1_input";
    e->kind = HWMON_POWER;
    start_thread(e);
    return e;
}

int tel_energy_stop(struct tel_energy *e, double *joules, double *secs, char *source, size_t sn,
                    char *why, size_t wn)
{
    int rc = -1;
    double end_j;
    *secs = util_mono_s() - e->t0;
    switch (e->kind) {
    case NVML_COUNTER:
    case HWMON_COUNTER:
    case METRICS_COUNTER:
        if (read_counter(e, &end_j) == 0 && end_j >= e->start_j) {
            *joules = end_j - e->start_j;
            snprintf(source, sn, "%s",
                     e->kind == NVML_COUNTER    ? "NVML total energy"
                     : e->kind == HWMON_COUNTER ? "hwmon energy1_input"
                                                : "gpu_metrics energy accumulator");
            rc = 0;
        } else {
            snprintf(why, wn, "the energy counter could not be read again, or went backwards");
        }
        break;
    case NVML_POWER:
    case HWMON_POWER:
        if (e->running) {
            pthread_mutex_lock(&e->mu);
            e->stop = 1;
            pthread_mutex_unlock(&e->mu);
            pthread_join(e->th, NULL);
            pthread_mutex_destroy(&e->mu);
        }
        if (e->samples >= 2) {
            /* the interval the samples cover (the last one may come after
             * the call to stop) */
            *joules = e->joules;
            *secs = e->last_t - e->first_t;
            snprintf(source, sn, "integrated %s power samples (%d, every %d ms)",
                     e->kind == NVML_POWER ? "NVML" : "hwmon", e->samples, SAMPLE_MS);
            rc = 0;
        } else {
            snprintf(why, wn, "%s; too few power samples (%d)", e->why, e->samples);
        }
        break;
    default:
        snprintf(why, wn, "%s", e->why[0] ? e->why : "no energy source");
        break;
    }
    tel_nvml_close(e->nvml);
    free(e);
    return rc;
}
