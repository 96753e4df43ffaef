/* probe_vulkan.c - can this process render headless through Vulkan, and is
 * the AMD GPU one of the devices? RoboTwin's simulator (SAPIEN) renders with
 * Vulkan; without an ICD for the GPU it falls back to, or fails on, the
 * software rasteriser.
 *
 * dlopens the Vulkan loader (libvulkan.so.1; the environment variable
 * ROCM_VLA_DOCTOR_VULKAN_LIB names another file, for tests and for loaders
 * outside the library path), creates an instance without any surface
 * extension and enumerates the physical devices. The answers are the
 * "vulkan" query (text, one item a line) so that a snapshot replays them:
 *
 *   loader <1|0> <library> <dlopen error>
 *   instance <loader's instance API version>
 *   error <what failed after the loader loaded>
 *   device <name> <vendorID> <deviceID> <type> <API version> <driverID|-1>
 *          <driver name> <driver info>            (tab-separated)
 *
 * The loader is kept loaded: unloading it and the ICDs it pulled in
 * (Mesa drivers register exit handlers) is a known source of crashes. */
#include "probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/vulkan_api.h"

int probe_vulkan_run(struct probe_ctx *ctx);

#define VULKAN_LIB_ENV "ROCM_VLA_DOCTOR_VULKAN_LIB"

static void clean_add(struct strbuf *out, const char *s)
{
    strbuf_addc(out, '\t');
    for (; s && *s; s++)
        strbuf_addc(out, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static char *version_text(uint32_t v)
{
    return xasprintf("%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                     VK_API_VERSION_PATCH(v));
}

static void put_device(struct strbuf *out, const VkPhysicalDeviceProperties *p,
                       const VkPhysicalDeviceDriverProperties *drv)
{
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + 1];
    memcpy(name, p->deviceName, sizeof(p->deviceName));
    name[sizeof(name) - 1] = '\0';
    char *api = version_text(p->apiVersion);
    strbuf_adds(out, "device");
    clean_add(out, name);
    strbuf_addf(out, "\t0x%04x\t0x%04x\t%d\t%s\t%d", p->vendorID, p->deviceID, p->deviceType, api,
                drv ? drv->driverID : -1);
    if (drv) {
        char dn[VK_MAX_DRIVER_NAME_SIZE + 1], di[VK_MAX_DRIVER_INFO_SIZE + 1];
        memcpy(dn, drv->driverName, sizeof(drv->driverName));
        dn[sizeof(dn) - 1] = '\0';
        memcpy(di, drv->driverInfo, sizeof(drv->driverInfo));
        di[sizeof(di) - 1] = '\0';
        clean_add(out, dn);
        clean_add(out, di);
    } else {
        clean_add(out, "");
        clean_add(out, "");
    }
    strbuf_addc(out, '\n');
    free(api);
}

static int vulkan_live(struct strbuf *out)
{
    const char *lib = getenv(VULKAN_LIB_ENV);
    if (!lib || !*lib)
        lib = "libvulkan.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        strbuf_adds(out, "loader\t0");
        clean_add(out, lib);
        clean_add(out, e ? e : "dlopen failed");
        strbuf_addc(out, '\n');
        return 0;
    }
    __typeof__(vkGetInstanceProcAddr) *gipa;
    *(void **)&gipa = dlsym(h, "vkGetInstanceProcAddr");
    strbuf_adds(out, "loader\t1");
    clean_add(out, lib);
    clean_add(out, "");
    strbuf_addc(out, '\n');
    if (!gipa) {
        strbuf_addf(out, "error\t%s has no vkGetInstanceProcAddr\n", lib);
        return 0;
    }

    /* vkEnumerateInstanceVersion is absent from 1.0 loaders: then 1.0 */
    uint32_t inst_version = VK_MAKE_API_VERSION(0, 1, 0, 0);
    __typeof__(vkEnumerateInstanceVersion) *enum_version;
    *(void **)&enum_version = (void *)gipa(NULL, "vkEnumerateInstanceVersion");
    if (enum_version && enum_version(&inst_version) != VK_SUCCESS)
        inst_version = VK_MAKE_API_VERSION(0, 1, 0, 0);
    char *iv = version_text(inst_version);
    strbuf_addf(out, "instance\t%s\n", iv);
    free(iv);

    __typeof__(vkCreateInstance) *create;
    *(void **)&create = (void *)gipa(NULL, "vkCreateInstance");
    if (!create) {
        strbuf_adds(out, "error\tvkGetInstanceProcAddr(vkCreateInstance) returned NULL\n");
        return 0;
    }
    /* ask for at most 1.3; a 1.0 loader must be given 1.0 */
    uint32_t want = inst_version >= VK_MAKE_API_VERSION(0, 1, 3, 0)
                        ? VK_MAKE_API_VERSION(0, 1, 3, 0)
                        : inst_version;
    VkApplicationInfo app = {
        VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "rocm-vla-doctor", 1, NULL, 0, want};
    VkInstanceCreateInfo ci = {
        VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    VkInstance inst = NULL;
    VkResult r = create(&ci, NULL, &inst);
    if (r != VK_SUCCESS || !inst) {
        strbuf_addf(out, "error\tvkCreateInstance failed (VkResult %d)\n", (int)r);
        return 0;
    }
    __typeof__(vkDestroyInstance) *destroy;
    __typeof__(vkEnumeratePhysicalDevices) *enum_devices;
    __typeof__(vkGetPhysicalDeviceProperties) *props;
    __typeof__(vkGetPhysicalDeviceProperties2) *props2;
    *(void **)&destroy = (void *)gipa(inst, "vkDestroyInstance");
    *(void **)&enum_devices = (void *)gipa(inst, "vkEnumeratePhysicalDevices");
    *(void **)&props = (void *)gipa(inst, "vkGetPhysicalDeviceProperties");
    /* core in 1.1; NULL on a 1.0 instance, then the driver name is unknown */
    *(void **)&props2 = want >= VK_MAKE_API_VERSION(0, 1, 1, 0)
                            ? (void *)gipa(inst, "vkGetPhysicalDeviceProperties2")
                            : NULL;
    if (!enum_devices || !props) {
        strbuf_adds(out, "error\tthe instance lacks vkEnumeratePhysicalDevices\n");
        if (destroy)
            destroy(inst, NULL);
        return 0;
    }
    uint32_t n = 0;
    r = enum_devices(inst, &n, NULL);
    VkPhysicalDevice *devs = NULL;
    if (r == VK_SUCCESS && n > 0) {
        devs = xcalloc(n, sizeof(*devs));
        r = enum_devices(inst, &n, devs);
        if (r == VK_INCOMPLETE)
            r = VK_SUCCESS; /* a device went away between the calls: use what came */
    }
    if (r != VK_SUCCESS) {
        strbuf_addf(out, "error\tvkEnumeratePhysicalDevices failed (VkResult %d)\n", (int)r);
        n = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        memset(&p, 0, sizeof(p));
        props(devs[i], &p);
        /* VkPhysicalDeviceDriverProperties is core in 1.2 (both the instance
         * and the device must support it) */
        if (props2 && p.apiVersion >= VK_MAKE_API_VERSION(0, 1, 2, 0) &&
            want >= VK_MAKE_API_VERSION(0, 1, 2, 0)) {
            VkPhysicalDeviceDriverProperties drv;
            VkPhysicalDeviceProperties2 p2;
            memset(&drv, 0, sizeof(drv));
            memset(&p2, 0, sizeof(p2));
            drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
            p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
            p2.pNext = &drv;
            props2(devs[i], &p2);
            put_device(out, &p2.properties, &drv);
        } else {
            put_device(out, &p, NULL);
        }
    }
    free(devs);
    if (destroy)
        destroy(inst, NULL);
    return 0;
}

/* ---- facts -------------------------------------------------------------- */

static const char *type_name(int t)
{
    static const char *const names[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU",
                                        "CPU"};
    return t >= 0 && t < (int)ARRAY_SIZE(names) ? names[t] : "unknown type";
}

static int is_amd(unsigned vendor, int type, int driver_id)
{
    if (vendor != 0x1002 || type == VK_PHYSICAL_DEVICE_TYPE_CPU)
        return 0;
    if (driver_id == VK_DRIVER_ID_MESA_RADV || driver_id == VK_DRIVER_ID_AMD_OPEN_SOURCE ||
        driver_id == VK_DRIVER_ID_AMD_PROPRIETARY)
        return 1;
    /* no driver properties (a Vulkan 1.0/1.1 driver): only RADV and AMDVLK
     * report AMD's vendor id */
    return driver_id < 0;
}

static void set_unknown_rest(struct factset *fs, const char *src, const char *why)
{
    static const char *const names[] = {
        "render.vulkan_api_version", "render.vulkan_devices",       "render.vulkan_device_count",
        "render.vulkan_amd_device",  "render.vulkan_software_only", "render.vulkan_hardware_device",
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (!fact_get(fs, names[i]))
            fact_set_unknown(fs, names[i], src, "%s", why);
}

int probe_vulkan_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const char *src =
        rootfs_is_live() ? "libvulkan (vkEnumeratePhysicalDevices)" : ROOTFS_SNAPSHOT_DIR "/vulkan";
    char *text;
    int rc = rootfs_query("vulkan", vulkan_live, &text);
    if (rc) {
        fact_set_errno(fs, "render.vulkan_loader", src, rc);
        fact_set_errno(fs, "render.vulkan_error", src, rc);
        set_unknown_rest(fs, src, "the Vulkan answers could not be read");
        return 0;
    }
    struct strlist lines = STRLIST_INIT, devices = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    free(text);
    int loader = -1, amd = 0, hw = 0, ndev = 0;
    struct strbuf err = STRBUF_INIT;
    for (size_t i = 0; i < lines.n; i++) {
        char *f[9] = {0};
        size_t nf = str_split_fields(lines.v[i], f, 9);
        if (strcmp(f[0], "loader") == 0 && nf >= 2) {
            loader = strcmp(f[1], "1") == 0;
            if (!loader)
                strbuf_addf(&err, "cannot load %s: %s", nf > 2 ? f[2] : "libvulkan.so.1",
                            nf > 3 ? f[3] : "");
        } else if (strcmp(f[0], "instance") == 0 && nf >= 2) {
            fact_set_str(fs, "render.vulkan_api_version", f[1], src);
        } else if (strcmp(f[0], "error") == 0 && nf >= 2) {
            strbuf_addf(&err, "%s%s", err.len ? "; " : "", f[1]);
        } else if (strcmp(f[0], "device") == 0 && nf >= 9) {
            unsigned vendor = (unsigned)strtoul(f[2], NULL, 0);
            int type = atoi(f[4]), drv = atoi(f[6]);
            ndev++;
            amd |= is_amd(vendor, type, drv);
            hw += type != VK_PHYSICAL_DEVICE_TYPE_CPU;
            strlist_add_owned(&devices,
                              xasprintf("%s (%s/0x%04x, %s)", f[1], *f[7] ? f[7] : "driver ?",
                                        vendor, type_name(type)));
        }
    }
    strlist_release(&lines);
    if (loader < 0) {
        fact_set_unknown(fs, "render.vulkan_loader", src, "no loader line in the Vulkan answers");
        fact_set_unknown(fs, "render.vulkan_error", src, "no loader line in the Vulkan answers");
        set_unknown_rest(fs, src, "no loader line in the Vulkan answers");
    } else {
        fact_set_bool(fs, "render.vulkan_loader", loader, src);
        fact_set_str(fs, "render.vulkan_error", err.buf ? err.buf : "", src);
        if (!loader) {
            set_unknown_rest(fs, src, "no Vulkan loader");
        } else if (err.len && ndev == 0) {
            set_unknown_rest(fs, src, err.buf);
        } else {
            fact_set_list(fs, "render.vulkan_devices", &devices, src);
            fact_set_int(fs, "render.vulkan_device_count", ndev, src);
            fact_set_bool(fs, "render.vulkan_amd_device", amd, src);
            fact_set_bool(fs, "render.vulkan_software_only", ndev > 0 && hw == 0, src);
            fact_set_bool(fs, "render.vulkan_hardware_device", hw > 0, src);
            set_unknown_rest(fs, src, "the loader's instance version was not reported");
        }
    }
    strbuf_release(&err);
    strlist_release(&devices);
    return 0;
}
