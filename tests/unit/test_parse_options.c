/* test_parse_options.c - the option-table parser: every kind of row lands in
 * its field, options and positional arguments mix, a short option and its
 * long name are one row, each way a value can be wrong is refused (and the
 * message is the table's one wording), --help is PARSE_DONE, and the
 * generated usage and completion data name every row. */
#include "../../src/core/parse_options.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct t_opts {
    const char *sysroot, *out, *dtype;
    int flag, n;
    long big;
    int calls;
    const char *last;
};

static int count_cb(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    struct t_opts *o = base;
    o->calls++;
    o->last = v;
    return 0;
}

static const char *const mode_values[] = {"quick", "full", NULL};

static const struct optspec t_table[] = {
    OPT_SYSROOT(struct t_opts, sysroot),
    OPT_OUT(struct t_opts, out, "output", 'o', "FILE|-", "where"),
    OPT_DTYPE(struct t_opts, dtype),
    OPT_FLAG(struct t_opts, flag, "flag", 'f', "a flag"),
    OPT_INT(struct t_opts, n, "runs", 1, 10, NULL, "N", "an int"),
    OPT_INT(struct t_opts, big, "interval", 10, 3600000, "milliseconds", "MS", "a long"),
    OPT_CALLBACK("grid", 0, OPTA_REQUIRED, count_cb, OPTC_ANY, "KEY=V", "repeatable"),
    {.name = "sweep",
     .kind = OPTK_ENUM,
     .arg = OPTA_OPTIONAL,
     .values = mode_values,
     .cb = count_cb,
     .help = "optional value"},
    OPT_HELP_VERSION_END,
};

static const struct cmd_spec t_spec = {"tcmd", "tcmd", "ARG", "A test command.", t_table, NULL};

/* parse a NULL-terminated word list (argv[0] "tcmd" added) with stderr
 * captured into err (its first line) */
static int run(struct t_opts *o, char **words, char *err, size_t errn)
{
    char *argv[32] = {"tcmd"};
    int argc = 1;
    for (; words[argc - 1]; argc++)
        argv[argc] = words[argc - 1];
    memset(o, 0, sizeof(*o));
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = parse_options(argc, argv, &t_spec, o);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    err[0] = '\0';
    if (!fgets(err, (int)errn, tmp))
        err[0] = '\0';
    err[strcspn(err, "\n")] = '\0';
    fclose(tmp);
    /* the positional arguments after the options, argv permuted */
    for (int i = rc; rc > 0 && i < argc; i++)
        words[i - rc] = argv[i];
    return rc;
}

static void test_kinds(void)
{
    struct t_opts o;
    char err[300];
    char *w[] = {"pos1",   "--sysroot", "/r",         "-o",      "out.json",   "--dtype=fp16",
                 "-f",     "--runs",    "3",          "pos2",    "--interval", "2500",
                 "--grid", "a=1",       "--grid=b=2", "--sweep", NULL};
    int rc = run(&o, w, err, sizeof(err));
    CHECK(rc == 15); /* two positionals after 15 option words */
    CHECK_STR(w[0], "pos1");
    CHECK_STR(w[1], "pos2");
    CHECK_STR(o.sysroot, "/r");
    CHECK_STR(o.out, "out.json");
    CHECK_STR(o.dtype, "fp16");
    CHECK(o.flag == 1 && o.n == 3 && o.big == 2500);
    CHECK(o.calls == 3);   /* --grid twice, --sweep */
    CHECK(o.last == NULL); /* --sweep without a value */
    char *w2[] = {"--sweep=full", "--", "--flag", NULL};
    rc = run(&o, w2, err, sizeof(err));
    CHECK(rc == 3); /* "--" is an option word */
    CHECK_STR(o.last, "full");
    CHECK_STR(w2[0], "--flag"); /* after "--": an argument */
    CHECK(o.flag == 0);
}

static void refused(char *a, char *b, const char *want)
{
    struct t_opts o;
    char err[300];
    char *w[] = {a, b, NULL};
    CHECK(run(&o, w, err, sizeof(err)) == PARSE_ERROR);
    if (strcmp(err, want) != 0)
        fprintf(stderr, "    got '%s'\n", err);
    CHECK_STR(err, want);
}

static void test_errors(void)
{
    refused("--dtype", "x", "rocm-vla-doctor: error: --dtype must be bf16, fp16 or fp32, not 'x'");
    refused("--runs", "0", "rocm-vla-doctor: error: --runs must be an integer in [1, 10], not '0'");
    refused("--runs", "3x",
            "rocm-vla-doctor: error: --runs must be an integer in [1, 10], not '3x'");
    refused("--interval", "5",
            "rocm-vla-doctor: error: --interval must be an integer in [10, 3600000] milliseconds, "
            "not '5'");
    refused("--sweep=huge", NULL,
            "rocm-vla-doctor: error: --sweep must be quick or full, not 'huge'");
    refused("--junit", "f", "rocm-vla-doctor: error: tcmd: unknown option '--junit'");
    refused("-v", NULL, "rocm-vla-doctor: error: tcmd: unknown option '-v'");
    refused("--runs", NULL, "rocm-vla-doctor: error: tcmd: option '--runs' requires a value");
    refused("-o", NULL, "rocm-vla-doctor: error: tcmd: option '-o' requires a value");
    refused("--flag=1", NULL, "rocm-vla-doctor: error: tcmd: option '--flag' takes no value");
}

static void test_help(void)
{
    struct t_opts o;
    char err[300];
    char *w[] = {"--runs", "2", "-h", NULL};
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    int rc = run(&o, w, err, sizeof(err));
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK(rc == PARSE_DONE);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    parse_options_usage(mem, &t_spec);
    fclose(mem);
    CHECK(strncmp(buf, "usage: rocm-vla-doctor tcmd ARG [options]\n", 42) == 0);
    for (const struct optspec *s = t_table; s->name; s++) {
        char want[64];
        snprintf(want, sizeof(want), "--%s", s->name);
        CHECK(strstr(buf, want) != NULL);
    }
    CHECK(strstr(buf, "-o, --output FILE|-") != NULL);
    CHECK(strstr(buf, "--sweep[=quick|full]") != NULL);
    /* what --help printed is the same text */
    rewind(tmp);
    char *got = calloc(1, len + 1);
    CHECK(fread(got, 1, len, tmp) == len && memcmp(got, buf, len) == 0);
    free(got);
    fclose(tmp);
    free(buf);
}

static void test_complete_table(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    const struct cmd_spec *cmds[] = {&t_spec};
    parse_options_complete_table(mem, cmds, 1);
    fclose(mem);
    CHECK(strstr(buf, "_rocm_vla_doctor_commands=\"tcmd\"\n") != NULL);
    CHECK(strstr(buf, "    tcmd) echo \"--sysroot --output -o --dtype --flag -f --runs --interval "
                      "--grid --sweep --help -h --version\" ;;\n") != NULL);
    CHECK(strstr(buf, "    \"tcmd --sysroot\") echo sysroot ;;\n") != NULL);
    CHECK(strstr(buf, "    \"tcmd --output\" | \"tcmd -o\") echo file ;;\n") != NULL);
    CHECK(strstr(buf, "    \"tcmd --dtype\") echo enum bf16 fp16 fp32 ;;\n") != NULL);
    CHECK(strstr(buf, "    \"tcmd --runs\") echo any ;;\n") != NULL);
    CHECK(strstr(buf, "\"tcmd --flag\"") == NULL);  /* no value: none */
    CHECK(strstr(buf, "\"tcmd --sweep\"") == NULL); /* only as --sweep=V */
    free(buf);
}

int main(void)
{
    test_kinds();
    test_errors();
    test_help();
    test_complete_table();
    return test_report();
}
