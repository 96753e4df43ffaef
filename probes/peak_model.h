/* peak_model.h - a device's peak rates derived from what it reports and the
 * per-architecture table of checks.yaml (src/core/peaks.h): never from a SKU
 * list, so a GPU nobody profiled still gets an expectation.
 *
 *   matrix/vector TFLOP/s = CUs x max shader clock x FLOPs per clock per CU
 *   memory GB/s           = reported memory clock x bus bits / 8 x transfers
 *                           per reported clock
 *   PCIe payload GB/s     = GT/s x lanes x encoding / 8 x TLP efficiency
 *
 * The PCIe model: 8b/10b encoding up to 5 GT/s, 128b/130b from 8 GT/s; each
 * TLP carries at most the Max_Payload_Size (256 bytes assumed: what x86 root
 * ports grant GPUs) behind 24 bytes of overhead (a 16-byte header with a
 * 64-bit address, 4-byte framing token or start/end symbols with the 2-byte
 * sequence number, 4-byte LCRC), so 256 / 280 of the encoded rate is
 * payload; DLLP acknowledgements and flow-control updates (1-2 %) are not
 * modelled. Gen4 x16: 31.5 GB/s encoded, 28.8 GB/s payload per direction. */
#ifndef RVD_PEAK_MODEL_H
#define RVD_PEAK_MODEL_H

#include "../src/core/fact.h"
#include "../src/core/peaks.h"

#define PEAK_MPS_BYTES 256.0
#define PEAK_TLP_OVERHEAD_BYTES 24.0

/* what the device reports; a value <= 0 is unknown, with *_src saying where
 * it was looked for */
struct peak_inputs {
    const char *arch; /* "gfx942", "gfx90a:sramecc+:xnack-", "sm_90"; NULL unknown */
    double cu;        /* compute units (SMs) */
    double sclk_mhz, mclk_mhz, bus_bits;
    const char *cu_src, *sclk_src, *mclk_src, *bus_src;
};

/* <prefix>.peak.{fp16_tflops, bf16_tflops, fp32_tflops, mem_gbs} (float, or
 * unknown naming the missing input or table figure), <prefix>.peak.basis and
 * .mem_basis (the arithmetic, for the report), <prefix>.peak.why ("" when
 * every figure was derived, else the reasons) */
void peak_derive(struct factset *fs, const char *prefix, const struct peak_table *t,
                 const struct peak_inputs *in);

/* the encoded rate (GB/s per direction) of a link, 0 when gts/width <= 0 */
double peak_pcie_encoded_gbs(double gts, double width);
/* the payload rate under the model above */
double peak_pcie_payload_gbs(double gts, double width);

/* the highest level of a pp_dpm_sclk / pp_dpm_mclk text ("1: 2100Mhz *"),
 * in MHz: 0, or -EINVAL when no level parses */
int peak_dpm_max_mhz(const char *text, double *mhz);

#endif
