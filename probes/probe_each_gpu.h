/* probe_each_gpu.h - --gpu N[,M]|all and the per-GPU probe runner (see
 * probe_each_gpu.c for the fact naming). */
#ifndef RVD_PROBE_EACH_GPU_H
#define RVD_PROBE_EACH_GPU_H

#include "probe.h"

#define GPU_SELECT_MAX 64

struct gpu_select {
    int all;                  /* --gpu all */
    int explicit_;            /* --gpu was given (else: device 0 when there is one) */
    int resolved;             /* gpu_select_resolve() ran */
    int n;                    /* devices to measure */
    int dev[GPU_SELECT_MAX];  /* runtime device indices */
    int slot[GPU_SELECT_MAX]; /* their gpu.<j> slots (after resolve) */
};

/* the option's syntax: "all" or distinct numbers separated by commas;
 * 0, or -1 with why (exit 2) */
int gpu_select_parse(const char *spec, struct gpu_select *sel, char *why, size_t why_len);
/* after the gpu_runtime probe: the devices and their slots, facts gpu.measured
 * and gpu.<j>.runtime_{device,pci,name}; -1 with why when --gpu names a device
 * the runtime does not show (exit 2) */
int gpu_select_resolve(struct factset *fs, struct gpu_select *sel, char *why, size_t why_len);
/* run p once per selected device (once without a device when none is) */
void probe_run_each_gpu(const struct probe *p, struct probe_ctx *ctx, double budget_s,
                        const struct gpu_select *sel);

#endif
