/* vulkan_api.h - the few Vulkan declarations probe_vulkan.c uses, so that the
 * doctor builds without the Vulkan headers and dlopens libvulkan.so.1 at run
 * time. Layouts and values are those of vulkan_core.h (Vulkan 1.3); the
 * struct sizes are asserted below. VKAPI_CALL is empty on Linux x86_64 and
 * aarch64. */
#ifndef RVD_VULKAN_API_H
#define RVD_VULKAN_API_H

#include <stdint.h>

typedef int32_t VkResult; /* an enum in vulkan_core.h: int-sized */
typedef uint32_t VkFlags;
typedef struct VkInstance_T *VkInstance;
typedef struct VkPhysicalDevice_T *VkPhysicalDevice;
typedef void (*PFN_vkVoidFunction)(void);

#define VK_SUCCESS 0
#define VK_INCOMPLETE 5
#define VK_MAKE_API_VERSION(variant, major, minor, patch)                                          \
    ((((uint32_t)(variant)) << 29) | (((uint32_t)(major)) << 22) | (((uint32_t)(minor)) << 12) |   \
     ((uint32_t)(patch)))
#define VK_API_VERSION_MAJOR(v) (((uint32_t)(v) >> 22) & 0x7fu)
#define VK_API_VERSION_MINOR(v) (((uint32_t)(v) >> 12) & 0x3ffu)
#define VK_API_VERSION_PATCH(v) ((uint32_t)(v)&0xfffu)

#define VK_STRUCTURE_TYPE_APPLICATION_INFO 0
#define VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO 1
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2 1000059001
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES 1000196000

/* VkPhysicalDeviceType */
#define VK_PHYSICAL_DEVICE_TYPE_OTHER 0
#define VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU 1
#define VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU 2
#define VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU 3
#define VK_PHYSICAL_DEVICE_TYPE_CPU 4

/* VkDriverId values that matter here */
#define VK_DRIVER_ID_AMD_PROPRIETARY 1
#define VK_DRIVER_ID_AMD_OPEN_SOURCE 2 /* AMDVLK */
#define VK_DRIVER_ID_MESA_RADV 3
#define VK_DRIVER_ID_MESA_LLVMPIPE 13

#define VK_MAX_PHYSICAL_DEVICE_NAME_SIZE 256
#define VK_UUID_SIZE 16
#define VK_MAX_DRIVER_NAME_SIZE 256
#define VK_MAX_DRIVER_INFO_SIZE 256

typedef struct VkApplicationInfo {
    int32_t sType;
    const void *pNext;
    const char *pApplicationName;
    uint32_t applicationVersion;
    const char *pEngineName;
    uint32_t engineVersion;
    uint32_t apiVersion;
} VkApplicationInfo;

typedef struct VkInstanceCreateInfo {
    int32_t sType;
    const void *pNext;
    VkFlags flags;
    const VkApplicationInfo *pApplicationInfo;
    uint32_t enabledLayerCount;
    const char *const *ppEnabledLayerNames;
    uint32_t enabledExtensionCount;
    const char *const *ppEnabledExtensionNames;
} VkInstanceCreateInfo;

/* VkPhysicalDeviceLimits is never read: kept opaque at its exact size and
 * alignment (it holds uint64_t and size_t members) */
typedef struct VkPhysicalDeviceLimits {
    _Alignas(8) unsigned char opaque[504];
} VkPhysicalDeviceLimits;

typedef struct VkPhysicalDeviceSparseProperties {
    uint32_t bits[5]; /* five VkBool32 */
} VkPhysicalDeviceSparseProperties;

typedef struct VkPhysicalDeviceProperties {
    uint32_t apiVersion;
    uint32_t driverVersion;
    uint32_t vendorID;
    uint32_t deviceID;
    int32_t deviceType;
    char deviceName[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    uint8_t pipelineCacheUUID[VK_UUID_SIZE];
    VkPhysicalDeviceLimits limits;
    VkPhysicalDeviceSparseProperties sparseProperties;
} VkPhysicalDeviceProperties;

typedef struct VkPhysicalDeviceProperties2 {
    int32_t sType;
    void *pNext;
    VkPhysicalDeviceProperties properties;
} VkPhysicalDeviceProperties2;

typedef struct VkConformanceVersion {
    uint8_t major, minor, subminor, patch;
} VkConformanceVersion;

typedef struct VkPhysicalDeviceDriverProperties {
    int32_t sType;
    void *pNext;
    int32_t driverID;
    char driverName[VK_MAX_DRIVER_NAME_SIZE];
    char driverInfo[VK_MAX_DRIVER_INFO_SIZE];
    VkConformanceVersion conformanceVersion;
} VkPhysicalDeviceDriverProperties;

/* sizes from vulkan_core.h 1.3.239 on x86_64 */
_Static_assert(sizeof(VkApplicationInfo) == 48, "VkApplicationInfo layout");
_Static_assert(sizeof(VkInstanceCreateInfo) == 64, "VkInstanceCreateInfo layout");
_Static_assert(sizeof(VkPhysicalDeviceProperties) == 824, "VkPhysicalDeviceProperties layout");
_Static_assert(sizeof(VkPhysicalDeviceProperties2) == 840, "VkPhysicalDeviceProperties2 layout");
_Static_assert(sizeof(VkPhysicalDeviceDriverProperties) == 536, "driver properties layout");

/* prototypes: never linked, used through __typeof__ to type dlsym'd and
 * vkGetInstanceProcAddr'd pointers */
PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance instance, const char *pName);
VkResult vkEnumerateInstanceVersion(uint32_t *pApiVersion);
VkResult vkCreateInstance(const VkInstanceCreateInfo *pCreateInfo, const void *pAllocator,
                          VkInstance *pInstance);
void vkDestroyInstance(VkInstance instance, const void *pAllocator);
VkResult vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *pPhysicalDeviceCount,
                                    VkPhysicalDevice *pPhysicalDevices);
void vkGetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                   VkPhysicalDeviceProperties *pProperties);
void vkGetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice,
                                    VkPhysicalDeviceProperties2 *pProperties);

#endif
