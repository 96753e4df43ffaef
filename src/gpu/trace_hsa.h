/* trace_hsa.h - what --trace-gpu (gpu_trace.c) prints for an
 * hsa_agent_get_info call: the attribute by its header name and the value
 * written through the void * by the attribute's type. The attributes are the
 * ones the HIP backend asks (hip_api.h's values, held against Debian's
 * hsa.h/hsa_ext_amd.h or tests/data/rocm-abi.tsv by tests/rocm_headers.sh). */
#ifndef RVD_GPU_TRACE_HSA_H
#define RVD_GPU_TRACE_HSA_H

enum trace_hsa_type {
    TH_STR, /* char[64], NUL-terminated (HSA_AGENT_INFO_NAME: "gfx90a") */
    TH_U32, /* uint32_t */
    TH_BDF, /* uint32_t bus << 8 | device << 3 | function: "03:00.0" */
};

struct trace_hsa_attr {
    unsigned attr;
    const char *name;
    enum trace_hsa_type type;
};

/* attribute a's entry, NULL for one the table does not know (printed as a
 * number with the value as a pointer id) */
const struct trace_hsa_attr *trace_hsa_agent_attr(unsigned a);

#endif
