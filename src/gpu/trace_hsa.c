/* trace_hsa.c - see trace_hsa.h. */
#include "trace_hsa.h"

#include <stddef.h>

#include "hip_api.h"

/* every agent attribute hip_api.h declares (the backend asks DEVICE, BDFID
 * and DOMAIN; NAME is a tool's first question and costs nothing here) */
static const struct trace_hsa_attr agent_attrs[] = {
    {HSA_AGENT_INFO_NAME, "HSA_AGENT_INFO_NAME", TH_STR},
    {HSA_AGENT_INFO_DEVICE, "HSA_AGENT_INFO_DEVICE", TH_U32},
    {HSA_AMD_AGENT_INFO_BDFID, "HSA_AMD_AGENT_INFO_BDFID", TH_BDF},
    {HSA_AMD_AGENT_INFO_DOMAIN, "HSA_AMD_AGENT_INFO_DOMAIN", TH_U32},
};

const struct trace_hsa_attr *trace_hsa_agent_attr(unsigned a)
{
    for (size_t i = 0; i < sizeof(agent_attrs) / sizeof(agent_attrs[0]); i++)
        if (agent_attrs[i].attr == a)
            return &agent_attrs[i];
    return NULL;
}
