/* report_html_fleet.h - the fleet's spread as one self-contained HTML page,
 * for the `fleet` command (src/fleet/), which parses the nodes' reports and
 * calls html_write_fleet.
 *
 * The page holds: a row per node (its name, exit code, the checks it
 * failed, ROCm and driver), and for each figure that matters across nodes
 * a dot plot with the fleet's median:
 *   - per measured GPU (a row per node and GPU slot of its gpu.measured):
 *     PCIe copies gpu.<j>.bw.h2d_pinned_gbs, gpu.<j>.bw.d2h_pinned_gbs and
 *     memory gpu.<j>.membw.best_gbs (GB/s), GEMM rate
 *     gpu.<j>.gemm_peak.fp16_tflops, bf16, fp32 (TFLOP/s)
 *   - VLA p50: vla.latency.total_ms (ms), a row per node
 * A node where a figure is unknown or absent is drawn as the word
 * "unknown" in its row, never as 0; a figure no node has is one line that
 * says so. Every string is escaped (src/report/html.h). */
#ifndef RVD_REPORT_HTML_FLEET_H
#define RVD_REPORT_HTML_FLEET_H

#include <stddef.h>
#include <stdio.h>

#include "../reportdoc/doc.h"

/* docs[0..n): reports loaded with diff_doc_load() (src/reportdoc/doc.h); a node
 * is named by its report's host.hostname, else its file name. title: the
 * page's heading, NULL for "rocm-vla-doctor fleet". 0, or -1 on a write
 * error (after printing why). */
int html_write_fleet(FILE *f, const struct diff_doc *docs, size_t n, const char *title);
/* the same page led by why (NULL: no such list): the reasons `fleet`
 * found the fleet does not pass (fleet_reasons), one list item each, or
 * that it passes when why is empty */
struct strlist;
int html_write_fleet_why(FILE *f, const struct diff_doc *docs, size_t n, const char *title,
                         const struct strlist *why);

#endif
