/* gpu_trace.h - --trace-gpu: every call the HIP backend makes into libamdhip64,
 * hiprtc, libhsa-runtime64, rocBLAS and hipBLASLt (and cuBLASLt's, blaslt.c,
 * when the CUDA backend runs under a trace), one line each, so that the first run
 * on an AMD card this project has never seen is a precise bug report.
 *
 * The wrappers are generated (trace_gen.h) from the same lists that bind the
 * functions (backend_hip.c), and installed over the bound pointers only when
 * a trace is open, so an untraced run calls the vendor functions directly.
 *
 * A line (tab-separated): pid, seq (this process's call order, by start),
 * start in ms since the trace was opened, duration in us, library, the call
 * with its arguments, the result. Lines are written when a call returns, so
 * a call made from inside another (an HSA iteration callback) comes first.
 * Redaction: pointers are ids (dN device, mN managed, hN pinned host memory,
 * with +offset inside an allocation; pN any other pointer or handle, by first
 * appearance); output buffers (names, PCI ids, logs, code) are not printed,
 * nor outputs of a failed call ("&?"); an Lt attribute's value prints as
 * "&=112" (an address as its id), an hsa_agent_get_info's attribute by name
 * and its value by type (trace_hsa.h: the agent's name, its PCI bus:dev.fn);
 * strings are cut to 64 bytes with the host's and the user's names and the
 * home directory replaced. Writing one line per call costs time: timings
 * measured under a trace are not the card's. */
#ifndef RVD_GPU_TRACE_H
#define RVD_GPU_TRACE_H

#include <stddef.h>

/* open (truncate) the trace file; 0, or -1 with why. The descriptor is
 * inherited by the isolated probe children, which append to it. */
int gpu_trace_open(const char *path, char *why, size_t why_n);
int gpu_trace_on(void);
void gpu_trace_close(void);
/* a run that failed: the temporary file is removed, the target left as it was */
void gpu_trace_abort(void);

enum gpu_trace_kind {
    GT_INT,       /* signed integer by value */
    GT_UINT,      /* unsigned integer by value */
    GT_PTR,       /* a pointer or handle: its id */
    GT_BUF,       /* an output character buffer: its id, never its text */
    GT_STR,       /* a NUL-terminated input string */
    GT_STRV,      /* an array of strings, counted by the integer before it */
    GT_OUT_INT,   /* int *: the value after the call */
    GT_OUT_UINT,  /* unsigned *: the value after the call */
    GT_OUT_LONG,  /* long * (int64_t *): the value after the call */
    GT_OUT_SIZE,  /* size_t *: the value after the call */
    GT_OUT_FLOAT, /* float *: the value after the call */
    GT_OUT_PTR,   /* a pointer to a pointer or handle: the id after the call */
    GT_HANDLE,    /* a 64-bit handle by value (hsa_agent_t): its id */
    GT_FN,        /* a function pointer (a callback) */
};

#define GPU_TRACE_MAX_ARGS 32
struct gpu_trace_call {
    const char *lib, *fn;
    double t0;
    unsigned long seq;
    int n;
    struct gpu_trace_arg {
        enum gpu_trace_kind k;
        long long i;
        unsigned long long u;
        const void *p;
    } a[GPU_TRACE_MAX_ARGS];
};

/* the wrappers' steps: begin, one record per argument, end with the result */
void gpu_trace_begin(struct gpu_trace_call *c, const char *lib, const char *fn);
void gpu_trace_rec(struct gpu_trace_call *c, enum gpu_trace_kind k, long long i,
                   unsigned long long u, const void *p);
/* a status result (0 is success); name, when given, spells a nonzero one */
void gpu_trace_end_status(struct gpu_trace_call *c, unsigned e, const char *(*name)(unsigned));
void gpu_trace_end_str(struct gpu_trace_call *c, const char *s, const char *(*name)(unsigned));

#endif
