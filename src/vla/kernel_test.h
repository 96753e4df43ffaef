/* kernel_test.h - `bench --kernel-test` (kernel_test.c) */
#ifndef RVD_VLA_KERNEL_TEST_H
#define RVD_VLA_KERNEL_TEST_H

/* 0 all pass, 1 a kernel disagrees with the CPU reference, 2 no GPU, 3 internal */
int vla_kernel_test(const char *backend);

#endif
