/* tel_write.c - see tel_write.h. Strings (a process name any local user
 * chose, a PCI id, a driver's words) reach the file only through the core
 * escapers: json_write_string() and csv_write_cell() (escape.h). */
#include "tel_write.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "../core/json_out.h"
#include "../core/util.h"

/* a known value; a source that read NaN or an infinity writes null (JSON)
 * or an empty cell (CSV), never a word a parser rejects */
static void num(FILE *out, double v, int csv)
{
    if (!isfinite(v)) {
        if (!csv)
            fputs("null", out);
    } else if (v == floor(v) && fabs(v) < 9e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.6g", v);
}

static void iso_time(double wall, char *buf, size_t n)
{
    time_t t = (time_t)wall;
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[32];
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s.%03dZ", base, (int)((wall - (double)t) * 1000) % 1000);
}

void tel_write_json(FILE *out, const struct tel_sample *s, long index)
{
    char when[48];
    iso_time(s->wall_s, when, sizeof(when));
    fprintf(out,
            "{\"schema\":\"" TEL_MONITOR_SCHEMA
            "\",\"sample\":%ld,\"t_s\":%.3f,\"time\":\"%s\",\"gpus\":[",
            index, s->t_s, when);
    for (size_t i = 0; i < s->ngpu; i++) {
        const struct tel_gpu *g = &s->gpus[i];
        fprintf(out, "%s{\"gpu\":%zu,\"pci\":", i ? "," : "", i);
        json_write_string(out, g->pci);
        fprintf(out, ",\"vendor\":");
        json_write_string(out, g->vendor);
        for (int k = 0; k < TEL_NKEYS; k++) {
            fprintf(out, ",\"%s\":", tel_key_name(k));
            if (g->src[k])
                num(out, g->v[k], 0);
            else
                fputs("null", out);
        }
        fputs(",\"throttle\":", out);
        if (g->throttle_known)
            json_write_string(out, g->throttle);
        else
            fputs("null", out);
        fputs(",\"throttle_src\":", out);
        json_write_string(out, g->throttle_known ? g->throttle_src : "");
        if (!g->throttle_known) {
            fputs(",\"throttle_why\":", out);
            json_write_string(out, g->throttle_why);
        }
        fputs(",\"pcie_path_hop\":", out);
        if (g->path_hop[0])
            json_write_string(out, g->path_hop);
        else
            fputs("null", out);
        if (g->procs_why[0]) {
            fputs(",\"procs_why\":", out);
            json_write_string(out, g->procs_why);
        }
        fputs(",\"src\":{", out);
        int first = 1;
        for (int k = 0; k < TEL_NKEYS; k++)
            if (g->src[k]) {
                fprintf(out, "%s\"%s\":", first ? "" : ",", tel_key_name(k));
                json_write_string(out, g->src[k]);
                first = 0;
            }
        fputs("},\"unknown\":{", out);
        first = 1;
        for (int k = 0; k < TEL_NKEYS; k++)
            if (!g->src[k]) {
                fprintf(out, "%s\"%s\":", first ? "" : ",", tel_key_name(k));
                json_write_string(out, g->why[k]);
                first = 0;
            }
        fputs("}}", out);
    }
    fputs("],\"procs\":[", out);
    for (size_t i = 0; i < s->nproc; i++) {
        const struct tel_proc *p = &s->procs[i];
        fprintf(out, "%s{\"pid\":%d,\"comm\":", i ? "," : "", p->pid);
        json_write_string(out, p->comm);
        fprintf(out, ",\"gpu\":%d,\"vram_bytes\":", p->gpu);
        if (p->vram_bytes >= 0)
            fprintf(out, "%lld", (long long)p->vram_bytes);
        else
            fputs("null", out);
        fputs(",\"busy_pct\":", out);
        if (p->busy_pct >= 0)
            num(out, p->busy_pct, 0);
        else
            fputs("null", out);
        fputs(",\"src\":", out);
        json_write_string(out, p->src ? p->src : "");
        fputs("}", out);
    }
    fprintf(out, "],\"procs_unreadable\":%d}\n", s->procs_unreadable);
}

void tel_write_csv_header(FILE *out)
{
    fputs("sample,t_s,time,gpu,pci,vendor", out);
    for (int k = 0; k < TEL_NKEYS; k++)
        fprintf(out, ",%s", tel_key_name(k));
    fputs(",throttle,throttle_src,procs,pcie_path_hop\n", out);
}

void tel_write_csv(FILE *out, const struct tel_sample *s, long index)
{
    char when[48];
    iso_time(s->wall_s, when, sizeof(when));
    for (size_t i = 0; i < s->ngpu; i++) {
        const struct tel_gpu *g = &s->gpus[i];
        fprintf(out, "%ld,%.3f,%s,%zu,", index, s->t_s, when, i);
        csv_write_cell(out, g->pci);
        fputc(',', out);
        csv_write_cell(out, g->vendor);
        for (int k = 0; k < TEL_NKEYS; k++) {
            fputc(',', out);
            if (g->src[k])
                num(out, g->v[k], 1);
        }
        fputc(',', out);
        if (g->throttle_known)
            csv_write_cell(out, g->throttle);
        fputc(',', out);
        csv_write_cell(out, g->throttle_known ? g->throttle_src : g->throttle_why);
        fputc(',', out);
        /* "comm(pid):vram_bytes" per process on this GPU, space separated */
        char buf[1024] = "";
        size_t used = 0;
        for (size_t p = 0; p < s->nproc && used < sizeof(buf); p++) {
            const struct tel_proc *pr = &s->procs[p];
            if (pr->gpu != (int)i)
                continue;
            int w = pr->vram_bytes >= 0
                        ? snprintf(buf + used, sizeof(buf) - used, "%s%s(%d):%lld", used ? " " : "",
                                   pr->comm, pr->pid, (long long)pr->vram_bytes)
                        : snprintf(buf + used, sizeof(buf) - used, "%s%s(%d)", used ? " " : "",
                                   pr->comm, pr->pid);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        if (used >= sizeof(buf))
            buf[sizeof(buf) - 1] = '\0';
        /* unknown (NVML's call failed) is not "no process" */
        csv_write_cell(out, g->procs_why[0] ? "?" : buf);
        fputc(',', out);
        csv_write_cell(out, g->path_hop);
        fputc('\n', out);
    }
}
