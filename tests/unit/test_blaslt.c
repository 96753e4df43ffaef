/* test_blaslt.c - the cuBLASLt binding's parts that run without a GPU
 * (src/gpu/blaslt_cuda.h): the operand alignment that keys the per-shape
 * plan cache (a plan chosen for 256-byte aligned operands must never run on
 * a 4-byte aligned one), and the load failing with a reason and no library
 * named where libcublasLt is absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/gpu/blaslt_cuda.h"
#include "test.h"

static void test_align(void)
{
    CHECK(gpu_lt_align((void *)0x10000, 1152, 2) == 256); /* capped */
    CHECK(gpu_lt_align((void *)0x10000, 100, 2) == 8);    /* pitch 200 bytes */
    CHECK(gpu_lt_align((void *)0x10004, 1024, 4) == 4);   /* one float past */
    CHECK(gpu_lt_align((void *)0x10010, 72, 2) == 16);    /* pitch 144 */
    CHECK(gpu_lt_align((void *)0x10000, 0, 4) == 256);    /* a vector: address only */
    CHECK(gpu_lt_align((void *)0x10002, 64, 2) == 2);
}

/* an absent library: no plan cache, the file named in the reason, no library
 * reported as bound (the load of a present one is the device's kernel test) */
static void test_open_absent(void)
{
    char lib[512] = "x", err[512] = "";
    setenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB", "/nonexistent/libcublasLt.so.99", 1);
    struct gpu_lt *lt = gpu_lt_open(lib, sizeof(lib), err, sizeof(err));
    unsetenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB");
    CHECK(lt == NULL);
    CHECK(lib[0] == '\0');
    CHECK(strstr(err, "/nonexistent/libcublasLt.so.99") != NULL);
}

int main(void)
{
    test_align();
    test_open_absent();
    return test_report();
}
