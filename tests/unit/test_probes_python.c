/* test_probes_python.c - the python probe: torch/version.py, installed
 * distribution names, requirements files, and the whole probe on a fake
 * sysroot (a recorded "python" query plus a torch/version.py in the tree). */
#include "../../probes/fact_catalog.h"
#include "../../probes/probe.h"
#include "../../probes/probe_python.h"
#include "test.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int probe_python_run(struct probe_ctx *ctx);

/* ---- helpers ---------------------------------------------------------- */

static void scan(const char *text, struct requirements_scan *s)
{
    memset(s, 0, sizeof(*s));
    requirements_scan_text(text, strlen(text), s);
}

/* the entry of a list that starts with prefix, or NULL */
static const char *entry(const struct strlist *l, const char *prefix)
{
    for (size_t i = 0; i < l->n; i++)
        if (str_starts(l->v[i], prefix))
            return l->v[i];
    return NULL;
}

static void write_file(const char *path, const char *text)
{
    char *dir = xstrdup(path);
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    }
    free(dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const struct fact *get(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    if (!f)
        fprintf(stderr, "no fact %s\n", name);
    return f;
}

static int is_type(const struct factset *fs, const char *name, enum fact_type t)
{
    const struct fact *f = get(fs, name);
    return f && f->type == t;
}

static const char *str_of(const struct factset *fs, const char *name)
{
    const struct fact *f = get(fs, name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

/* ---- torch/version.py ------------------------------------------------- */

static void test_version_rocm(void)
{
    struct python_torch_version v;
    const char *text = "from typing import Optional\n\n"
                       "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                       "__version__ = '2.3.0+rocm6.0'\n"
                       "debug = False\n"
                       "cuda: Optional[str] = None\n"
                       "git_version = '55e93013211e3d9a52e259aee5df4f6198a3cdcc'\n"
                       "hip: Optional[str] = '6.0.32830-d62f6a171'\n";
    CHECK(python_parse_torch_version(text, &v) == 0);
    CHECK_STR(v.version, "2.3.0+rocm6.0");
    CHECK_STR(v.hip, "6.0.32830-d62f6a171");
    CHECK(v.cuda == NULL);
    CHECK_STR(python_torch_build(&v), "rocm");
    char *series = python_torch_hip_series(&v);
    CHECK_STR(series, "6.0");
    free(series);
    python_torch_version_release(&v);
}

static void test_version_cuda(void)
{
    struct python_torch_version v;
    const char *text = "from typing import Optional\n\n"
                       "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                       "__version__ = '2.7.1+cu126'\n"
                       "debug = False\n"
                       "cuda: Optional[str] = '12.6'\n"
                       "git_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'\n"
                       "hip: Optional[str] = None\n"
                       "xpu: Optional[str] = None\n";
    CHECK(python_parse_torch_version(text, &v) == 0);
    CHECK_STR(v.version, "2.7.1+cu126");
    CHECK(v.hip == NULL);
    CHECK_STR(v.cuda, "12.6");
    CHECK_STR(python_torch_build(&v), "cuda");
    CHECK(python_torch_hip_series(&v) == NULL);
    python_torch_version_release(&v);
}

static void test_version_cpu_and_old(void)
{
    struct python_torch_version v;
    /* a CPU wheel; `cuda_version` must not be taken for `cuda` */
    const char *cpu = "__version__ = '2.6.0+cpu'\n"
                      "debug = False\n"
                      "cuda_version = '12.8'\n"
                      "cuda: Optional[str] = None\n"
                      "hip: Optional[str] = None\n";
    CHECK(python_parse_torch_version(cpu, &v) == 0);
    CHECK_STR(python_torch_build(&v), "cpu");
    CHECK(v.cuda == NULL && v.hip == NULL);
    python_torch_version_release(&v);

    /* torch 1.x: unannotated, and a ROCm build of those days */
    const char *old = "__version__ = '1.13.1+rocm5.2'\ndebug = False\ncuda = None\n"
                      "git_version = '49444c3e546bf240bed24a101e747422d1f8a0ee'\n"
                      "hip = '5.2.21151-afdc89f8'\n";
    CHECK(python_parse_torch_version(old, &v) == 0);
    CHECK_STR(python_torch_build(&v), "rocm");
    char *series = python_torch_hip_series(&v);
    CHECK_STR(series, "5.2");
    free(series);
    python_torch_version_release(&v);

    /* double quotes, CRLF, and a rocm local version without hip */
    const char *dq = "__version__ = \"2.9.0+rocm6.4\"\r\nhip: Optional[str] = None\r\n";
    CHECK(python_parse_torch_version(dq, &v) == 0);
    CHECK_STR(v.version, "2.9.0+rocm6.4");
    CHECK_STR(python_torch_build(&v), "rocm");
    series = python_torch_hip_series(&v);
    CHECK_STR(series, "6.4");
    free(series);
    python_torch_version_release(&v);

    /* rocmsdk<date>: ROCm, but no series to tell */
    CHECK(python_parse_torch_version("__version__ = '2.9.0+rocmsdk20251116'\nhip = None\n", &v) ==
          0);
    CHECK_STR(python_torch_build(&v), "rocm");
    CHECK(python_torch_hip_series(&v) == NULL);
    python_torch_version_release(&v);

    CHECK(python_parse_torch_version("debug = False\nhip = None\n", &v) == -EINVAL);
    CHECK(v.version == NULL);
}

/* ---- installed distributions ------------------------------------------ */

static void test_dist_names(void)
{
    CHECK(python_dist_cuda_reason("nvidia-cublas-cu12", 0) != NULL);
    CHECK(python_dist_cuda_reason("nvidia-nccl-cu12", 0) != NULL);
    CHECK(python_dist_cuda_reason("nvidia-dali-cuda120", 0) != NULL);
    CHECK(python_dist_cuda_reason("cupy-cuda12x", 0) != NULL);
    CHECK(python_dist_cuda_reason("jax-cuda12-plugin", 0) != NULL);
    CHECK(python_dist_cuda_reason("tensorrt-cu12-libs", 0) != NULL);
    CHECK(python_dist_cuda_reason("pytorch-triton", 0) != NULL);
    CHECK(python_dist_cuda_reason("onnxruntime-gpu", 0) != NULL);
    CHECK(python_dist_cuda_reason("nvidia-ml-py", 0) == NULL);
    CHECK(python_dist_cuda_reason("pytorch-triton-rocm", 0) == NULL);
    CHECK(python_dist_cuda_reason("torch", 0) == NULL);
    CHECK(python_dist_cuda_reason("cupy-rocm-5-0", 0) == NULL);
    CHECK(python_dist_cuda_reason("cupy", 0) == NULL);
    CHECK(python_dist_cuda_reason("accuracy", 0) == NULL);
    /* triton only with pytorch-triton-rocm: both ship the triton module */
    CHECK(python_dist_cuda_reason("triton", 0) == NULL);
    CHECK(python_dist_cuda_reason("triton", 1) != NULL);

    char *n = requirements_normalize_name("Flash_Attn", 10);
    CHECK_STR(n, "flash-attn");
    free(n);
    n = requirements_normalize_name("zope.interface", 14);
    CHECK_STR(n, "zope-interface");
    free(n);
    n = requirements_normalize_name("a__-.b", 6);
    CHECK_STR(n, "a-b");
    free(n);
}

/* ---- requirements ----------------------------------------------------- */

/* a LingBot-VLA / openpi style file copied from an NVIDIA setup */
static const char req_nvidia[] =
    "# LingBot-VLA training environment\n"
    "--extra-index-url https://download.pytorch.org/whl/cu124\n"
    "torch==2.5.1+cu124\n"
    "torchvision==0.20.1+cu124   # matches torch\n"
    "flash-attn==2.6.3\n"
    "nvidia-cudnn-cu12==9.1.0.70 ; sys_platform == \"linux\"\n"
    "transformers==4.45.0  # tokenizer fix\n"
    "numpy>=1.24,<2.0 \\\n"
    "    ; python_version >= \"3.10\"\n"
    "-r extra.txt\n"
    "jax[cuda12]==0.5.3\n"
    "bitsandbytes==0.41.1\n"
    "cupy-cuda12x\n"
    "xformers==0.0.28.post3\n"
    "nvidia-ml-py>=12\n"
    "https://github.com/Dao-AILab/flash-attention/releases/download/v2.6.3/"
    "flash_attn-2.6.3+cu123torch2.4cxx11abiFALSE-cp310-cp310-linux_x86_64.whl\n"
    "-e git+https://github.com/Physical-Intelligence/openpi.git#egg=openpi\n"
    "-f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html\n"
    "--constraint=constraints.txt\n"
    "safetensors==0.4.5 --hash=sha256:0123456789abcdef\n";

static void test_requirements_nvidia(void)
{
    struct requirements_scan s;
    scan(req_nvidia, &s);
    /* torch, torchvision, flash-attn, nvidia-cudnn, transformers, numpy, jax,
     * bitsandbytes, cupy, xformers, nvidia-ml-py, the wheel URL, -e, safetensors */
    CHECK(s.count == 14);
    CHECK_STR(entry(&s.cuda, "line 2:"),
              "line 2: --extra-index-url https://download.pytorch.org/whl/cu124 "
              "(a CUDA wheel index)");
    CHECK_STR(entry(&s.cuda, "line 3:"),
              "line 3: torch==2.5.1+cu124 (local version +cu124 is a CUDA build)");
    CHECK(entry(&s.cuda, "line 4: torchvision==0.20.1+cu124 (") != NULL);
    CHECK(entry(&s.cuda, "line 5: flash-attn==2.6.3 (") != NULL);
    CHECK(entry(&s.cuda, "line 6: nvidia-cudnn-cu12==9.1.0.70 ; sys_platform == \"linux\" (") !=
          NULL);
    CHECK(entry(&s.cuda, "line 7:") == NULL);
    CHECK(entry(&s.cuda, "line 8:") == NULL); /* numpy, continued onto line 9 */
    CHECK_STR(entry(&s.cuda, "line 11:"),
              "line 11: jax[cuda12]==0.5.3 (extra [cuda12] installs NVIDIA CUDA wheels)");
    CHECK(entry(&s.cuda, "line 12: bitsandbytes==0.41.1 (") != NULL);
    CHECK(entry(&s.cuda, "line 13: cupy-cuda12x (") != NULL);
    CHECK(entry(&s.cuda, "line 14: xformers") != NULL);
    CHECK(entry(&s.cuda, "line 15:") == NULL); /* nvidia-ml-py: NVML binding only */
    CHECK(entry(&s.cuda, "line 16: https://github.com/Dao-AILab") != NULL);
    CHECK(entry(&s.cuda, "line 17:") == NULL); /* -e git+...#egg=openpi */
    CHECK(entry(&s.cuda, "line 18: -f https://storage.googleapis.com") != NULL);
    CHECK(entry(&s.cuda, "line 20:") == NULL);
    CHECK(s.cuda.n == 11);
    CHECK(s.unfollowed.n == 2);
    CHECK_STR(entry(&s.unfollowed, "line 10:"), "line 10: -r extra.txt (not followed)");
    CHECK_STR(entry(&s.unfollowed, "line 19:"),
              "line 19: --constraint=constraints.txt (not followed)");
    requirements_scan_release(&s);
}

/* the same with CRLF line ends: the same answer */
static void test_requirements_crlf(void)
{
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = req_nvidia; *p; p++) {
        if (*p == '\n')
            strbuf_addc(&sb, '\r');
        strbuf_addc(&sb, *p);
    }
    struct requirements_scan a, b;
    scan(req_nvidia, &a);
    scan(sb.buf, &b);
    CHECK(a.count == b.count);
    CHECK(a.cuda.n == b.cuda.n);
    for (size_t i = 0; i < a.cuda.n && i < b.cuda.n; i++)
        CHECK_STR(b.cuda.v[i], a.cuda.v[i]);
    CHECK(b.unfollowed.n == 2);
    requirements_scan_release(&a);
    requirements_scan_release(&b);
    strbuf_release(&sb);
}

static void test_requirements_rocm_clean(void)
{
    struct requirements_scan s;
    const char *text = "--index-url https://download.pytorch.org/whl/rocm6.2\n"
                       "--extra-index-url https://pypi.org/simple\n"
                       "torch==2.5.1+rocm6.2\n"
                       "torchvision>=0.20\n"
                       "pytorch-triton-rocm\n"
                       "transformers>=4.40,<5  # the VLM backbone\n"
                       "bitsandbytes>=0.48\n"
                       "bitsandbytes\n"
                       "xformers==0.0.28.post3\n" /* from the ROCm index above */
                       "accelerate ; python_version >= \"3.9\"\n"
                       "\n"
                       "   # indented comment\n"
                       "https://example.com/wheels/cudnn_free-1.0-py3-none-any.whl#sha256=ab\n"
                       "nvidia-ml-py\n";
    scan(text, &s);
    CHECK(s.count == 10);
    CHECK(s.cuda.n == 0);
    for (size_t i = 0; i < s.cuda.n; i++)
        fprintf(stderr, "unexpected: %s\n", s.cuda.v[i]);
    CHECK(s.unfollowed.n == 0);
    requirements_scan_release(&s);

    /* xformers without a ROCm index, bitsandbytes pinned below 0.48 */
    scan("xformers\nbitsandbytes<0.45\nbitsandbytes~=0.43.1\nbitsandbytes>=0.39,<=0.47.2\n"
         "bitsandbytes==0.48.1\n",
         &s);
    CHECK(s.count == 5);
    CHECK(s.cuda.n == 4);
    CHECK(entry(&s.cuda, "line 5:") == NULL);
    requirements_scan_release(&s);

    /* a continuation that ends the file, an empty file */
    scan("torch==2.3.0+cu121 \\", &s);
    CHECK(s.count == 1 && s.cuda.n == 1);
    requirements_scan_release(&s);
    scan("", &s);
    CHECK(s.count == 0 && s.cuda.n == 0 && s.unfollowed.n == 0);
    requirements_scan_release(&s);

    /* a continued requirement reports its first line; "#egg" is no comment */
    scan("# header\n"
         "torch \\\n"
         "  ==2.3.0+cu121\n"
         "-i https://pypi.nvidia.com\n"
         "torch @ https://download.pytorch.org/whl/cu121/torch-2.3.0%2Bcu121-cp310-cp310-"
         "linux_x86_64.whl\n",
         &s);
    CHECK(s.count == 2);
    CHECK(entry(&s.cuda, "line 2: torch ==2.3.0+cu121 (local version +cu121") != NULL);
    CHECK_STR(entry(&s.cuda, "line 4:"),
              "line 4: -i https://pypi.nvidia.com (NVIDIA's package index)");
    CHECK(entry(&s.cuda, "line 5: torch @ https://download.pytorch.org/whl/cu121/") != NULL);
    requirements_scan_release(&s);
}

/* ---- the probe on a fake sysroot -------------------------------------- */

static const char torch_rocm_version_py[] =
    "from typing import Optional\n\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.3.0+rocm6.0'\n"
    "debug = False\n"
    "cuda: Optional[str] = None\n"
    "git_version = '55e93013211e3d9a52e259aee5df4f6198a3cdcc'\n"
    "hip: Optional[str] = '6.0.32830-d62f6a171'\n";

/* the loaded checks, passed in the probe options as main() does */
static const struct checkset *test_checks;

static void run_probe(struct factset *fs, const char *requirements, const char *python)
{
    struct probe_opts opts = {
        .requirements = requirements, .python = python, .checks = test_checks};
    struct probe_ctx ctx = {fs, LEVEL_QUICK, &opts, 0};
    CHECK(probe_python_run(&ctx) == 0);
}

static void test_sysroot(const char *base)
{
    char *root = xasprintf("%s/root", base);
    char *p = xasprintf("%s/.snapshot/python", root);
    write_file(p, "interpreter=/home/u/venv/bin/python3\n"
                  "executable=/home/u/venv/bin/python3\n"
                  "version=3.10.14\n"
                  "prefix=/home/u/venv\n"
                  "torch_dir=/home/u/venv/lib/python3.10/site-packages/torch\n"
                  "dist=numpy 1.26.4\n"
                  "dist=nvidia-cublas-cu12 12.1.3.1\n"
                  "dist=nvidia-ml-py 12.535.161\n"
                  "dist=pytorch-triton-rocm 2.3.0\n"
                  "dist=torch 2.3.0+rocm6.0\n"
                  "dist=triton 2.3.0\n");
    free(p);
    p = xasprintf("%s/home/u/venv/lib/python3.10/site-packages/torch/version.py", root);
    write_file(p, torch_rocm_version_py);
    free(p);

    char *req = xasprintf("%s/requirements.txt", base);
    write_file(req, "torch==2.5.1+cu124\r\nnumpy\r\n-r dev.txt\r\n");

    CHECK(rootfs_init(root) == 0);
    struct factset fs = FACTSET_INIT;
    /* no ROCm installed (probe_rocm ran first and found none): the fallback
     * series PyTorch publishes wheels for */
    fact_set_unknown(&fs, "rocm.series", "/opt/rocm", "no ROCm installed");
    run_probe(&fs, req, NULL);
    /* no ROCm: the newest index of the table with a cp310 wheel and the
     * pinned torch 2.5.1 (the file's torch==2.5.1+cu124) */
    CHECK_STR(str_of(&fs, "python.torch_wheel_index"), "https://download.pytorch.org/whl/rocm6.2");
    CHECK_STR(str_of(&fs, "python.requirements_torch_pin"), "2.5.1");
    factset_release(&fs);
    /* ROCm 6.2 installed: of its two indexes the one with torch 2.5.1
     * (whl/rocm6.2.4 carries 2.6.0 alone) */
    fact_set_str(&fs, "rocm.series", "6.2", "/opt/rocm/.info/version");
    run_probe(&fs, req, NULL);
    CHECK_STR(str_of(&fs, "python.torch_wheel_index"), "https://download.pytorch.org/whl/rocm6.2");
    CHECK(strstr(str_of(&fs, "python.torch_wheel_index_why"), "and torch 2.5.1"));
    const struct fact *f = get(&fs, "python.present");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    CHECK_STR(str_of(&fs, "python.error"), "");
    CHECK_STR(str_of(&fs, "python.executable"), "/home/u/venv/bin/python3");
    CHECK_STR(str_of(&fs, "python.version"), "3.10.14");
    f = get(&fs, "python.torch_present");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    CHECK_STR(str_of(&fs, "python.torch_dir"), "/home/u/venv/lib/python3.10/site-packages/torch");
    CHECK_STR(str_of(&fs, "python.torch_version"), "2.3.0+rocm6.0");
    CHECK_STR(str_of(&fs, "python.torch_build"), "rocm");
    CHECK_STR(str_of(&fs, "python.torch_hip"), "6.0.32830-d62f6a171");
    CHECK_STR(str_of(&fs, "python.torch_hip_series"), "6.0");
    CHECK_STR(str_of(&fs, "python.torch_hip_suffix"), ", HIP 6.0.32830");
    CHECK_STR(str_of(&fs, "python.torch_cuda"), "");
    /* an answer without stdlib= (an older doctor's): not guessed */
    f = get(&fs, "python.ensurepip_present");
    CHECK(f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, "no stdlib path"));
    CHECK_STR(str_of(&fs, "python.venv_package"), "python3.10-venv");
    /* neither pip_dir= nor a pip distribution: not guessed either */
    f = get(&fs, "python.pip_present");
    CHECK(f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, "older doctor"));
    f = get(&fs, "python.torch_version");
    CHECK(f && f->source && str_ends(f->source, "/torch/version.py"));
    f = get(&fs, "python.dist_count");
    CHECK(f && f->type == FACT_INT && f->i == 6);
    f = get(&fs, "python.nvidia_packages");
    CHECK(f && f->type == FACT_LIST && f->list.n == 2);
    if (f && f->type == FACT_LIST && f->list.n == 2) {
        CHECK_STR(f->list.v[0], "nvidia-cublas-cu12 12.1.3.1");
        CHECK_STR(f->list.v[1], "triton 2.3.0");
    }
    f = get(&fs, "python.requirements_given");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    CHECK_STR(str_of(&fs, "python.requirements_file"), req);
    f = get(&fs, "python.requirements_count");
    CHECK(f && f->type == FACT_INT && f->i == 2);
    f = get(&fs, "python.requirements_cuda");
    CHECK(f && f->type == FACT_LIST && f->list.n == 1);
    f = get(&fs, "python.requirements_unfollowed");
    CHECK(f && f->type == FACT_LIST && f->list.n == 1 &&
          strcmp(f->list.v[0], "line 3: -r dev.txt (not followed)") == 0);
    factset_release(&fs);

    /* a missing requirements file: given, but the verdict facts unknown */
    char *missing = xasprintf("%s/no-such-requirements.txt", base);
    run_probe(&fs, missing, NULL);
    f = get(&fs, "python.requirements_given");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    f = get(&fs, "python.requirements_cuda");
    CHECK(f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, "cannot read") &&
          strstr(f->reason, "No such file"));
    CHECK(is_type(&fs, "python.requirements_count", FACT_UNKNOWN));
    factset_release(&fs);
    free(missing);

    /* no --requirements */
    run_probe(&fs, NULL, NULL);
    f = get(&fs, "python.requirements_given");
    CHECK(f && f->type == FACT_BOOL && f->b == 0);
    factset_release(&fs);

    /* torch without version.py: present, version facts unknown */
    p = xasprintf("%s/home/u/venv/lib/python3.10/site-packages/torch/version.py", root);
    unlink(p);
    free(p);
    run_probe(&fs, NULL, NULL);
    f = get(&fs, "python.torch_present");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    CHECK(is_type(&fs, "python.torch_build", FACT_UNKNOWN));
    factset_release(&fs);

    /* no torch, a CPU-only environment */
    p = xasprintf("%s/.snapshot/python", root);
    write_file(p, "interpreter=/usr/bin/python3\nexecutable=/usr/bin/python3\nversion=3.11.2\n"
                  "prefix=/usr\ntorch_dir=\ndist=pip 23.0.1\n");
    run_probe(&fs, NULL, NULL);
    f = get(&fs, "python.torch_present");
    CHECK(f && f->type == FACT_BOOL && f->b == 0);
    CHECK_STR(str_of(&fs, "python.torch_dir"), "");
    f = get(&fs, "python.torch_build");
    CHECK(f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, "not installed"));
    f = get(&fs, "python.nvidia_packages");
    CHECK(f && f->type == FACT_LIST && f->list.n == 0);
    /* pip's dist-info is listed: present, even from an older doctor */
    f = get(&fs, "python.pip_present");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    factset_release(&fs);

    /* pip_dir: the lookup's answer; '' is no pip, an error is unknown */
    static const struct {
        const char *line;
        enum fact_type type;
        int b;
    } pip_cases[] = {
        {"pip_dir=\n", FACT_BOOL, 0},
        {"pip_dir=/usr/lib/python3/dist-packages/pip\n", FACT_BOOL, 1},
        {"pip_error=ValueError: pip.__spec__ is None\n", FACT_UNKNOWN, 0},
    };
    for (size_t i = 0; i < ARRAY_SIZE(pip_cases); i++) {
        char *answer = xasprintf("interpreter=/usr/bin/python3\nexecutable=/usr/bin/python3\n"
                                 "version=3.11.2\nprefix=/usr\ntorch_dir=\n%s",
                                 pip_cases[i].line);
        write_file(p, answer);
        free(answer);
        run_probe(&fs, NULL, NULL);
        f = get(&fs, "python.pip_present");
        CHECK(f && f->type == pip_cases[i].type &&
              (f->type != FACT_BOOL || f->b == pip_cases[i].b));
        if (pip_cases[i].type == FACT_UNKNOWN)
            CHECK(f && f->reason && strstr(f->reason, "cannot look pip up"));
        factset_release(&fs);
    }

    /* Debian's system Python: PEP 668 marker, ensurepip stripped into
     * python3.11-venv; then with ensurepip back (the package installed) */
    write_file(p, "interpreter=/usr/bin/python3\nexecutable=/usr/bin/python3\nversion=3.11.2\n"
                  "prefix=/usr\nstdlib=/usr/lib/python3.11\ntorch_dir=\n");
    char *marker = xasprintf("%s/usr/lib/python3.11/EXTERNALLY-MANAGED", root);
    write_file(marker, "[externally-managed]\n");
    run_probe(&fs, NULL, NULL);
    f = get(&fs, "python.externally_managed");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    f = get(&fs, "python.ensurepip_present");
    CHECK(f && f->type == FACT_BOOL && f->b == 0 && f->source &&
          str_ends(f->source, "/usr/lib/python3.11/ensurepip/__init__.py"));
    CHECK_STR(str_of(&fs, "python.venv_package"), "python3.11-venv");
    factset_release(&fs);
    char *ensurepip = xasprintf("%s/usr/lib/python3.11/ensurepip/__init__.py", root);
    write_file(ensurepip, "import os\n");
    run_probe(&fs, NULL, NULL);
    f = get(&fs, "python.ensurepip_present");
    CHECK(f && f->type == FACT_BOOL && f->b == 1);
    factset_release(&fs);
    unlink(ensurepip);
    unlink(marker);
    free(ensurepip);
    free(marker);

    /* no interpreter: present=false, the rest unknown with the reason */
    write_file(p, "interpreter=python3\nerror=python3 not found on PATH\n");
    run_probe(&fs, NULL, NULL);
    f = get(&fs, "python.present");
    CHECK(f && f->type == FACT_BOOL && f->b == 0);
    CHECK_STR(str_of(&fs, "python.error"), "python3 not found on PATH");
    f = get(&fs, "python.torch_build");
    CHECK(f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, "not found on PATH"));
    CHECK(is_type(&fs, "python.torch_present", FACT_UNKNOWN));
    CHECK(is_type(&fs, "python.nvidia_packages", FACT_UNKNOWN));
    CHECK(is_type(&fs, "python.pip_present", FACT_UNKNOWN));
    factset_release(&fs);

    /* a snapshot without the query: every python fact unknown, none made up */
    unlink(p);
    run_probe(&fs, NULL, NULL);
    CHECK(is_type(&fs, "python.present", FACT_UNKNOWN));
    CHECK(is_type(&fs, "python.torch_build", FACT_UNKNOWN));
    factset_release(&fs);
    free(p);

    rootfs_release();
    free(req);
    free(root);
}

/* ---- the live producer ------------------------------------------------ */

static void test_live(void)
{
    CHECK(rootfs_init(NULL) == 0);
    struct factset fs = FACTSET_INIT;

    run_probe(&fs, NULL, "/nonexistent/bin/python3");
    const struct fact *f = get(&fs, "python.present");
    CHECK(f && f->type == FACT_BOOL && f->b == 0);
    CHECK_STR(str_of(&fs, "python.error"), "/nonexistent/bin/python3 is not an executable file");
    factset_release(&fs);

    /* a program that answers nothing: no answer, not a crash */
    run_probe(&fs, NULL, "/bin/true");
    f = get(&fs, "python.present");
    CHECK(f && f->type == FACT_BOOL && f->b == 0);
    CHECK_STR(str_of(&fs, "python.error"), "/bin/true gave no answer");
    factset_release(&fs);

    /* a program that fails */
    run_probe(&fs, NULL, "/bin/false");
    CHECK_STR(str_of(&fs, "python.error"), "/bin/false -c exited with status 1");
    factset_release(&fs);

    /* the real interpreter, when this machine has one */
    if (access("/usr/bin/python3", X_OK) == 0) {
        run_probe(&fs, NULL, "/usr/bin/python3");
        f = get(&fs, "python.present");
        CHECK(f && f->type == FACT_BOOL && f->b == 1);
        const char *ver = str_of(&fs, "python.version");
        CHECK(ver && ver[0] == '3' && ver[1] == '.');
        f = get(&fs, "python.dist_count");
        CHECK(f && f->type == FACT_INT && f->i >= 0);
        CHECK(is_type(&fs, "python.torch_present", FACT_BOOL));
        /* the script's own lookup answers: pip is known either way */
        CHECK(is_type(&fs, "python.pip_present", FACT_BOOL));
        factset_release(&fs);
    }
    rootfs_release();
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* ---- the wheel index table (checks.yaml torch_wheel_*) ---------------- */

struct pick_case {
    const char *cp, *series, *gfx, *index; /* index NULL: none fits */
    const char *why_has;                   /* in the reason */
};

static const struct pick_case pick_cases[] = {
    /* ROCm 5.2's index only had cp37-cp310: 3.11 goes to rocm5.4.2 */
    {"cp311", "5.2", "gfx1030", "rocm5.4.2", "kernel driver of ROCm 5.2"},
    {"cp310", "5.2", "gfx1030", "rocm5.2", "has cp310"},
    {"cp39", "5.2", "gfx90a", "rocm5.2", NULL},
    /* checks.yaml's gfx lists are not confirmed: they name no index off
     * (test_wheel_gfx_verified below pins a confirmed list that does) */
    {"cp311", "5.2", "gfx1100", "rocm5.4.2", "not confirmed"},
    {"cp313", "5.2", "gfx1030", NULL, "use Python 3.7-3.10 (whl/rocm5.2)"},
    {"cp312", "5.2", "gfx942", NULL, "install ROCm 6.1"},
    {"cp311", "5.7", "gfx1100", "rocm5.7", NULL},
    {"cp313", "5.7", "gfx1030", "rocm6.1", NULL},
    {"cp312", "6.0", "gfx942", "rocm6.1", NULL},
    {"cp311", "6.0", "gfx942", "rocm6.0", NULL},
    {"cp312", "6.2", "gfx942", "rocm6.2.4", NULL},
    {"cp313", "6.2", "gfx1100", "rocm6.2.4", NULL},
    {"cp312", "6.2", "gfx1201", "rocm6.2.4", "not confirmed"},
    {"cp39", "6.4", "gfx1201", "rocm6.4", NULL},
    {"cp313", "6.4", "gfx90a", "rocm6.4", NULL},
    {"cp39", "7.0", "gfx90a", "rocm6.4", NULL},
    {"cp313", "7.2", "gfx1201", "rocm7.2", NULL},
    /* rocm7.2 starts at cp310 and 6.4 is 3 releases from 7.2 */
    {"cp39", "7.2", "gfx1201", NULL, "use Python 3.10-3.14 (whl/rocm7.2)"},
    {"cp312", NULL, "gfx1201", "rocm7.2", "no ROCm installed"},
    {"cp39", NULL, "gfx942", "rocm6.4", NULL},
};

/* index "rocm6.2.4" has tag (torch_wheel_python) and target */
static int row_has(const struct checkset *cs, const char *table, const char *index, const char *v)
{
    const struct data_table *t = checks_data_find(cs, table, index);
    return t && strlist_has(&t->values, v);
}

/* a confirmed gfx list excludes a row; an unconfirmed one does not */
static void test_wheel_gfx_verified(void)
{
    static const char yaml[] = "schema: rocm-vla-doctor-checks/1\n"
                               "checks: []\n"
                               "data:\n"
                               "  torch_wheel_python:\n"
                               "    \"rocm6.3\": [cp312]\n"
                               "    \"rocm6.4\": [cp312]\n"
                               "  torch_wheel_gfx:\n"
                               "    \"rocm6.3\": [gfx942]\n"
                               "    \"rocm6.4\": [gfx942, gfx1201]\n"
                               "  torch_wheel_verified:\n"
                               "    \"rocm6.3\": [index, python, gfx]\n"
                               "    \"rocm6.4\": [index, python, gfx]\n"
                               "  rocm_release_order: [\"6.3\", \"6.4\"]\n";
    for (int verified = 1; verified >= 0; verified--) {
        struct checkset cs = {0};
        char *text = xstrdup(yaml);
        if (!verified) /* the 6.3 row's list unconfirmed: it no longer excludes */
            memcpy(strstr(text, "[index, python, gfx]"), "[index, python, xxx]", 20);
        CHECK(checks_load_string(&cs, "wheel.yaml", text, strlen(text)) == 0);
        struct strlist gfx = STRLIST_INIT;
        strlist_add(&gfx, "gfx1201");
        char *index = NULL, *why = NULL;
        CHECK(python_wheel_pick(&cs, "cp312", &gfx, "6.3", &index, &why) == 0);
        CHECK_STR(index, verified ? "rocm6.4" : "rocm6.3");
        CHECK(why &&
              (verified ? !strstr(why, "not confirmed") : strstr(why, "not confirmed") != NULL));
        /* a target no row lists has no known wheel, confirmed or not */
        struct strlist old = STRLIST_INIT;
        strlist_add(&old, "gfx803");
        char *i2 = NULL, *w2 = NULL;
        CHECK(python_wheel_pick(&cs, "cp312", &old, "6.3", &i2, &w2) == 0);
        CHECK(i2 == NULL && w2 && strstr(w2, "gfx803"));
        free(i2);
        free(w2);
        strlist_release(&old);
        free(index);
        free(why);
        free(text);
        strlist_release(&gfx);
        checks_release(&cs);
    }
}

static void test_wheel_pick(const struct checkset *cs)
{
    for (size_t i = 0; i < ARRAY_SIZE(pick_cases); i++) {
        const struct pick_case *c = &pick_cases[i];
        struct strlist gfx = STRLIST_INIT;
        strlist_add(&gfx, c->gfx);
        char *index, *why;
        CHECK(python_wheel_pick(cs, c->cp, &gfx, c->series, &index, &why) == 0);
        if (c->index ? !index || strcmp(index, c->index) != 0 : index != NULL)
            fprintf(stderr, "case %zu: %s %s %s -> %s (%s)\n", i, c->cp,
                    c->series ? c->series : "-", c->gfx, index ? index : "none", why);
        CHECK(c->index ? index && strcmp(index, c->index) == 0 : index == NULL);
        CHECK(why && (!c->why_has || strstr(why, c->why_has)));
        if (why && c->why_has && !strstr(why, c->why_has))
            fprintf(stderr, "case %zu: why '%s' lacks '%s'\n", i, why, c->why_has);
        free(index);
        free(why);
        strlist_release(&gfx);
    }
    /* the whole grid: whatever is picked has the wheel asked for */
    static const char *const cps[] = {"cp39", "cp310", "cp311", "cp312", "cp313"};
    static const char *const series[] = {"5.2", "5.4", "5.7", "6.0", "6.1", "6.2",
                                         "6.3", "6.4", "7.0", "7.1", "7.2"};
    static const char *const gfxs[] = {"gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"};
    int picked = 0, none = 0;
    for (size_t a = 0; a < ARRAY_SIZE(cps); a++)
        for (size_t b = 0; b < ARRAY_SIZE(series); b++)
            for (size_t g = 0; g < ARRAY_SIZE(gfxs); g++) {
                struct strlist gfx = STRLIST_INIT;
                strlist_add(&gfx, gfxs[g]);
                char *index, *why;
                CHECK(python_wheel_pick(cs, cps[a], &gfx, series[b], &index, &why) == 0);
                if (index) {
                    picked++;
                    CHECK(row_has(cs, "torch_wheel_python", index, cps[a]));
                    /* a gfx list decides only where it was confirmed */
                    CHECK(!row_has(cs, "torch_wheel_verified", index, "gfx") ||
                          row_has(cs, "torch_wheel_gfx", index, gfxs[g]));
                    CHECK(row_has(cs, "torch_wheel_verified", index, "index"));
                } else {
                    none++;
                    CHECK(why && strstr(why, "no PyTorch ROCm wheel index"));
                }
                free(index);
                free(why);
                strlist_release(&gfx);
            }
    CHECK(picked > 0 && none > 0);
    /* no tables: unknown, not a guess */
    struct checkset empty = {0};
    char *index, *why;
    CHECK(python_wheel_pick(&empty, "cp311", NULL, "6.2", &index, &why) == -ENOENT);
    CHECK(index == NULL && why == NULL);
}

/* a pinned torch goes only to an index that carries it; else the pin moves */
static void test_wheel_pin(const struct checkset *cs)
{
    static const struct {
        const char *req, *pin;
    } pins[] = {
        {"torch==2.5.1", "2.5.1"},
        {"torch == 2.5.1+cu124", "2.5.1"},
        {"Torch==2.6.0 ; python_version>'3.9'", "2.6.0"},
        {"torch>=2.5", NULL},
        {"torch==2.5.*", NULL},
        {"torch==2.5.1,<3", NULL},
        {"torchvision==0.20.1", NULL},
        {"torch===2.5.1", NULL},
        {"torch==2.7.0rc1", NULL},
        {"torch", NULL},
    };
    for (size_t i = 0; i < ARRAY_SIZE(pins); i++) {
        char *got = requirements_torch_pin(pins[i].req);
        CHECK(pins[i].pin ? got && !strcmp(got, pins[i].pin) : got == NULL);
        if (pins[i].pin ? !got || strcmp(got, pins[i].pin) : got != NULL)
            fprintf(stderr, "  pin of '%s': %s\n", pins[i].req, got ? got : "none");
        free(got);
    }
    static const struct {
        const char *cp, *series, *gfx, *pin, *index, *why_has;
    } cases[] = {
        /* the case: 2.5.1 with ROCm 6.2 goes to whl/rocm6.2, not 6.2.4 */
        {"cp311", "6.2", "gfx1100", "2.5.1", "rocm6.2", "and torch 2.5.1"},
        {"cp311", "6.2", "gfx1100", "2.6.0", "rocm6.2.4", NULL},
        {"cp312", "6.4", "gfx1201", "2.9.0", "rocm6.4", NULL}, /* the "2.9" line */
        {"cp312", "7.2", "gfx1201", "2.11.0", "rocm7.2", NULL},
        /* no index within the driver's span has 1.13.1: move the pin */
        {"cp311", "7.2", "gfx1100", "1.13.1", NULL,
         "move the pin to a version whl/rocm7.2 has (2.11)"},
        {"cp311", "6.2", "gfx1100", NULL, "rocm6.2.4", NULL},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct strlist gfx = STRLIST_INIT;
        strlist_add(&gfx, cases[i].gfx);
        char *index, *why;
        CHECK(python_wheel_pick_pin(cs, cases[i].cp, &gfx, cases[i].series, cases[i].pin, &index,
                                    &why) == 0);
        int ok = (cases[i].index ? index && !strcmp(index, cases[i].index) : index == NULL) &&
                 why && (!cases[i].why_has || strstr(why, cases[i].why_has));
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  pin case %zu: %s (%s)\n", i, index ? index : "none", why ? why : "");
        free(index);
        free(why);
        strlist_release(&gfx);
    }
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs;
    /* RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation) */
    CHECK(checks_load_default(&cs, getenv("RVD_TEST_CHECKS")) == 0);
    test_checks = &cs;
    test_wheel_pick(&cs);
    test_wheel_pin(&cs);
    test_wheel_gfx_verified();
    char tmpl[] = "/tmp/test_probes_python.XXXXXX";
    char *base = mkdtemp(tmpl);
    CHECK(base != NULL);
    if (!base) {
        checks_release(&cs);
        return test_report();
    }

    test_version_rocm();
    test_version_cuda();
    test_version_cpu_and_old();
    test_dist_names();
    test_requirements_nvidia();
    test_requirements_crlf();
    test_requirements_rocm_clean();
    test_sysroot(base);
    test_live();

    if (nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "cannot remove %s\n", base);
    test_checks = NULL;
    checks_release(&cs);
    return test_report();
}
