/* kfd_sysfs.h - the bits of the KFD topology node "capability" property
 * and the mem_banks "heap_type" values that the probes decode, named as the kernel's include/uapi/linux/
 * kfd_sysfs.h names them (tests/unit/test_kernel_defs.c holds them against
 * the kernel's lines in tests/data/kernel/kfd_sysfs.txt). */
#ifndef RVD_KFD_SYSFS_H
#define RVD_KFD_SYSFS_H

/* SVM (HMM-backed shared virtual memory) API available on this node */
#define HSA_CAP_SVMAPI_SUPPORTED 0x08000000u

/* mem_banks heap_type: the GPU's framebuffer, CPU-visible part (public)
 * and the rest (private); together they are the node's VRAM */
#define HSA_MEM_HEAP_TYPE_FB_PUBLIC 1u
#define HSA_MEM_HEAP_TYPE_FB_PRIVATE 2u

#endif
