/* test_gpu_trace.c - the --trace-gpu lines (src/gpu/gpu_trace.c) through a
 * wrapper made by trace_gen.h, the generator the HIP backend uses: an
 * allocation gets an id and pointers into it print as offsets, a freed one
 * leaves the table, other pointers get ids by first appearance, output
 * values print after the call ("?" after a failed one), a failed status is
 * spelled by the library's name function, strings are cut and lose the
 * host's, the user's and the home directory's names, and an unwritable
 * trace path is a clear error; and a fork while another thread holds the
 * trace's lock leaves a child whose traced calls finish; hsa_agent_get_info
 * prints its attribute by name and its value by type. */
/* layers: core gpu */
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/gpu/gpu_trace.h"
#include "test.h"

static char arena[4096];

static unsigned my_malloc(void **p, size_t n)
{
    *p = n <= sizeof(arena) ? arena : NULL;
    return *p ? 0 : 2;
}
static unsigned my_free(void *p)
{
    (void)p;
    return 0;
}
static unsigned my_copy(void *d, const void *s, size_t n, int *out)
{
    (void)d, (void)s;
    *out = (int)n;
    return n ? 0 : 1;
}
static unsigned my_compile(const char *name, int n, const char **opts)
{
    (void)name, (void)n, (void)opts;
    return 0;
}
static unsigned my_sync(void)
{
    return 0;
}
/* the call and result columns of line i (0: the first call), "" if none */
static const char *call(const char *text, int i, char *buf, size_t n)
{
    const char *l = text;
    for (int k = -2; l && k < i; k++) /* two header lines */
        l = (l = strchr(l, '\n')) ? l + 1 : NULL;
    buf[0] = '\0';
    if (!l)
        return buf;
    for (int tab = 0; tab < 4 && l; tab++)
        l = (l = strchr(l, '\t')) ? l + 1 : NULL;
    if (l)
        snprintf(buf, n, "%.*s", (int)strcspn(l, "\n"), l);
    return buf;
}

/* the whole trace file at path into text (at most n - 1 bytes) */
static void slurp(const char *path, char *text, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(text, 1, n - 1, f) : 0;
    text[got] = '\0';
    if (f)
        fclose(f);
}

/* an hsa_agent_get_info of the fake agent 1: GPU, 03:00.0, "gfx90a" */
static unsigned my_info(unsigned long long agent, unsigned attr, void *v)
{
    if (agent != 1)
        return 0x1001;
    if (attr == 0)
        snprintf(v, 64, "gfx90a on %s", getenv("HOME"));
    else if (attr == 17 || attr == 0xA00F)
        *(unsigned *)v = attr == 17;
    else if (attr == 0xA006)
        *(unsigned *)v = 3 << 8 | 0 << 3 | 1;
    else
        return 0x1003;
    return 0;
}
static const char *my_err(unsigned e)
{
    return e == 1 ? "myErrorEmpty" : NULL;
}

static struct {
    __typeof__(&my_malloc) hipMalloc;
    __typeof__(&my_free) hipFree;
    __typeof__(&my_copy) hipCopy;
    __typeof__(&my_compile) hipCompile;
    __typeof__(&my_sync) hipSync;
    __typeof__(&my_info) hsa_agent_get_info;
} real = {my_malloc, my_free, my_copy, my_compile, my_sync, my_info};

#define GT_EXTRA_TYPES
#include "../../src/gpu/trace_gen.h"
GT_WRAPPER(real, "hip", my_err, unsigned, hipMalloc, void **, size_t)
GT_WRAPPER(real, "hip", my_err, unsigned, hipFree, void *)
GT_WRAPPER(real, "hip", my_err, unsigned, hipCopy, void *, const void *, size_t, int *)
GT_WRAPPER(real, "hip", my_err, unsigned, hipCompile, const char *, int, const char **)
GT_WRAPPER0(real, "hip", my_err, unsigned, hipSync)
GT_WRAPPER(real, "hsa", NULL, unsigned, hsa_agent_get_info, unsigned long long, unsigned, void *)

/* hsa_agent_get_info: the attribute by name, the value by its type (the
 * name redacted as any string), a failed call's value unprinted, an
 * attribute the table does not know as numbers and an id */
static void test_hsa_info(const char *path)
{
    char why[512], v[64];
    unsigned u = 0;
    CHECK(gpu_trace_open(path, why, sizeof(why)) == 0);
    CHECK(tw_hsa_agent_get_info(1, 0, v) == 0);
    CHECK(tw_hsa_agent_get_info(1, 17, &u) == 0 && u == 1);
    CHECK(tw_hsa_agent_get_info(1, 0xA006, &u) == 0);
    CHECK(tw_hsa_agent_get_info(1, 0xA00F, &u) == 0 && u == 0);
    CHECK(tw_hsa_agent_get_info(2, 0xA006, &u) == 0x1001);
    CHECK(tw_hsa_agent_get_info(1, 5, &u) == 0x1003);
    gpu_trace_close();
    static char text[8192];
    slurp(path, text, sizeof(text));
    char b[512];
    CHECK_STR(call(text, 0, b, sizeof(b)),
              "hsa\thsa_agent_get_info(1, HSA_AGENT_INFO_NAME, &\"gfx90a on ~\")\t0");
    CHECK_STR(call(text, 1, b, sizeof(b)),
              "hsa\thsa_agent_get_info(1, HSA_AGENT_INFO_DEVICE, &1)\t0");
    CHECK_STR(call(text, 2, b, sizeof(b)),
              "hsa\thsa_agent_get_info(1, HSA_AMD_AGENT_INFO_BDFID, &03:00.1)\t0");
    CHECK_STR(call(text, 3, b, sizeof(b)),
              "hsa\thsa_agent_get_info(1, HSA_AMD_AGENT_INFO_DOMAIN, &0)\t0");
    CHECK_STR(call(text, 4, b, sizeof(b)),
              "hsa\thsa_agent_get_info(2, HSA_AMD_AGENT_INFO_BDFID, &?)\t4097 (0x1001)");
    CHECK_STR(call(text, 5, b, sizeof(b)), "hsa\thsa_agent_get_info(1, 5, p1)\t4099 (0x1003)");
}

/* a status name that holds the trace's lock (names are spelled while the
 * line is written) until the main thread has called fork */
static volatile int in_name;
static const char *slow_err(unsigned e)
{
    (void)e;
    in_name = 1;
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return "slowError";
}
static void *slow_call(void *arg)
{
    (void)arg;
    struct gpu_trace_call c;
    gpu_trace_begin(&c, "hip", "hipSlow");
    gpu_trace_end_status(&c, 7, slow_err);
    return NULL;
}

/* fork while another thread holds the trace lock: the child's own traced
 * call must finish (it hung before fork waited for the lock); the child is
 * killed after 5 s so a hang fails the case instead of the run */
static void test_fork_while_locked(const char *path)
{
    char why[512];
    CHECK(gpu_trace_open(path, why, sizeof(why)) == 0);
    in_name = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, slow_call, NULL) == 0);
    while (!in_name)
        sched_yield();
    pid_t pid = fork();
    if (pid == 0) {
        alarm(5);
        void *d = NULL;
        _exit(tw_hipMalloc(&d, 16) == 0 ? 0 : 3);
    }
    CHECK(pid > 0);
    int st = -1;
    if (pid > 0)
        CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    pthread_join(t, NULL);
    gpu_trace_close();
    static char text[8192];
    slurp(path, text, sizeof(text));
    CHECK(strstr(text, "hipSlow()\t7 slowError") != NULL);
    CHECK(strstr(text, "hipMalloc(&") != NULL); /* the child's line */
}

int main(void)
{
    char why[512], path[] = "/tmp/rvd-test-gpu-trace.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);

    CHECK(gpu_trace_open("/nonexistent-dir/trace.txt", why, sizeof(why)) == -1);
    CHECK(strstr(why, "/nonexistent-dir/trace.txt") != NULL);
    CHECK(!gpu_trace_on());

    setenv("HOME", "/home/trace-tester", 1);
    CHECK(gpu_trace_open(path, why, sizeof(why)) == 0);
    CHECK(gpu_trace_on());
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    const struct passwd *pw = getpwuid(getuid());

    void *d = NULL;
    int got = -1;
    CHECK(tw_hipMalloc(&d, 256) == 0);
    CHECK(tw_hipCopy((char *)d + 64, arena + 4095, 16, &got) == 0 && got == 16);
    CHECK(tw_hipCopy(d, &got, 0, &got) == 1);
    char src[640]; /* a user name and a host name of up to 255 bytes each fit */
    snprintf(src, sizeof(src), "%s on %s in /home/trace-tester/k.hip %s", pw ? pw->pw_name : "u",
             host, "and a tail that runs past the cut at sixty-four bytes");
    const char *opts[] = {"--offload-arch=gfx90a", "-O3"};
    CHECK(tw_hipCompile(src, 2, opts) == 0);
    CHECK(tw_hipSync() == 0);
    CHECK(tw_hipFree(d) == 0);
    CHECK(tw_hipCopy(arena, NULL, 1, &got) == 0);
    gpu_trace_close();
    CHECK(!gpu_trace_on());

    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    static char text[8192];
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    unlink(path);

    char b[512];
    CHECK(strncmp(text, "# rocm-vla-doctor GPU call trace 1:", 35) == 0);
    CHECK_STR(call(text, 0, b, sizeof(b)), "hip\thipMalloc(&d1, 256)\t0");
    /* the source lies past the allocation's end: another pointer */
    CHECK_STR(call(text, 1, b, sizeof(b)), "hip\thipCopy(d1+0x40, p1, 16, &16)\t0");
    CHECK_STR(call(text, 2, b, sizeof(b)), "hip\thipCopy(d1, p2, 0, &?)\t1 myErrorEmpty");
    call(text, 3, b, sizeof(b));
    CHECK(strstr(b, "hip\thipCompile(\"USER on HOST in ~/k.hip and") == b);
    CHECK(strstr(b, "...(") != NULL);
    CHECK(strstr(b, ", 2, {\"--offload-arch=gfx90a\", \"-O3\"})\t0") != NULL);
    CHECK_STR(call(text, 4, b, sizeof(b)), "hip\thipSync()\t0");
    CHECK_STR(call(text, 5, b, sizeof(b)), "hip\thipFree(d1)\t0");
    /* freed: the arena's address is an ordinary pointer now */
    CHECK_STR(call(text, 6, b, sizeof(b)), "hip\thipCopy(p3, NULL, 1, &1)\t0");
    CHECK_STR(call(text, 7, b, sizeof(b)), "");
    if (host[0] && strlen(host) >= 2)
        CHECK(strstr(text, host) == NULL);
    if (pw && strlen(pw->pw_name) >= 2)
        CHECK(strstr(text, pw->pw_name) == NULL);
    CHECK(strstr(text, "trace-tester") == NULL);
    test_fork_while_locked(path);
    test_hsa_info(path);
    unlink(path);
    return test_report();
}
