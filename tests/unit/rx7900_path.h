/* rx7900_path.h - what the PCIe path of the rx7900xtx-desktop fixture's GPU
 * at 0000:86:00.0 reads: a Gen4 x16 GPU below an x8 hop (84:00.0), so the
 * path holds it back. One place for the AMD sampler's test and the NVIDIA
 * one (test_tel_nvml: an NVML device at that address walks the same path). */
#ifndef RVD_TEST_RX7900_PATH_H
#define RVD_TEST_RX7900_PATH_H

#include "../../src/telemetry/telemetry.h"
#include "test.h"

#define RX7900_ROOT "tests/fixtures/rx7900xtx-desktop/root"
#define RX7900_GPU "0000:86:00.0"

static void check_rx7900_path(const struct tel_gpu *g)
{
    CHECK(g->src[TEL_PCIE_MAX_WIDTH] && g->v[TEL_PCIE_MAX_WIDTH] == 16);
    CHECK(g->src[TEL_PCIE_PATH_WIDTH] && g->v[TEL_PCIE_PATH_WIDTH] == 8);
    CHECK(g->src[TEL_PCIE_PATH_GTS] && g->v[TEL_PCIE_PATH_GTS] == 16);
    CHECK(g->src[TEL_PCIE_PATH_LIMITED] && g->v[TEL_PCIE_PATH_LIMITED] == 1);
    CHECK_STR(g->path_hop, "0000:84:00.0");
}

#endif
