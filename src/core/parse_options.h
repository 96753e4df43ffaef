/* parse_options.h - one declarative option table per command (as git's
 * parse-options.h): each row names a long option (and a short one), what
 * its value is (none, a string, an integer in a range, one of a list of
 * words, or a callback's), where it goes (a field of the command's options
 * struct, by offset) and its help line. One parser reads every command's
 * table, so every command words an error the same way, refuses an option
 * its table lacks (exit 2 naming the option and the command) and prints a
 * --help generated from the same rows; `rocm-vla-doctor __complete-table`
 * prints the bash completion's data from them (completion/, tests/install.sh
 * checks the file against it).
 *
 * Messages (the syntax ones come from opt_next, src/core/opts.h):
 *   CMD: unknown option '--junit'          an option this command's table lacks
 *   CMD: option '--json' requires a value
 *   --dtype must be bf16, fp16 or fp32, not 'x'    a bad value: the same
 *   --runs must be an integer in [1, 100000], not 'x'    words from every
 *                                          command that takes the option
 * CMD is the command's name; the default command (check) has none. */
#ifndef RVD_PARSE_OPTIONS_H
#define RVD_PARSE_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum optkind {
    OPTK_FLAG,     /* int field := 1 */
    OPTK_STRING,   /* const char * field := the value */
    OPTK_INT,      /* int or long field := the value, within [min, max] */
    OPTK_ENUM,     /* const char * field := the value, one of values */
    OPTK_CALLBACK, /* cb(base, spec, value): the value is the callback's */
    OPTK_HELP,     /* prints the generated usage; the command exits 0 */
    OPTK_VERSION,  /* prints the version; the command exits 0 */
};

enum optarg_kind { OPTA_NONE, OPTA_REQUIRED, OPTA_OPTIONAL };

/* what completing the option's value offers (completion/) */
enum optcompl {
    OPTC_ANY,     /* a number, NAME=PCT...: nothing to offer */
    OPTC_FILE,    /* a file name */
    OPTC_DIR,     /* a directory */
    OPTC_SYSROOT, /* a directory or a .tar.gz snapshot */
    OPTC_PRESET,  /* a built-in preset or a .yaml file */
    OPTC_COMMAND, /* a program on PATH */
    OPTC_IDS,     /* check ids, comma-separated */
};

struct optspec {
    const char *name; /* the long name without "--"; NULL ends a table */
    char short_name;  /* 0: none */
    unsigned char kind, arg, compl ;
    size_t off, size;          /* the field in the command's options struct */
    long min, max;             /* OPTK_INT */
    const char *unit;          /* OPTK_INT: "milliseconds" after the range, or NULL */
    const char *const *values; /* OPTK_ENUM: NULL-terminated */
    /* OPTK_CALLBACK (and OPTK_ENUM when set, after the value is checked):
     * 0, or -1 after printing why; value is NULL for a flag */
    int (*cb)(void *base, const struct optspec *o, const char *value);
    const char *argname; /* "FILE|-" in the usage */
    const char *help;
};

struct cmd_spec {
    const char *name;   /* "bench" */
    const char *prefix; /* the messages' "bench: ", NULL for the default command */
    const char *args;   /* the positional arguments in the usage line, or NULL */
    const char *summary;
    const struct optspec *opts;
    void (*more_help)(FILE *out); /* text after the options, or NULL */
};

/* a field of T, for the rows below */
#define OPT_FIELD(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)

#define OPT_FLAG(T, f, n, s, h)                                                                    \
    {                                                                                              \
        .name = n, .short_name = s, .kind = OPTK_FLAG, .arg = OPTA_NONE, OPT_FIELD(T, f),          \
        .help = h                                                                                  \
    }
#define OPT_STRING(T, f, n, s, c, a, h)                                                            \
    {                                                                                              \
        .name = n, .short_name = s, .kind = OPTK_STRING, .arg = OPTA_REQUIRED, .compl = c,         \
        OPT_FIELD(T, f), .argname = a, .help = h                                                   \
    }
#define OPT_INT(T, f, n, lo, hi, u, a, h)                                                          \
    {                                                                                              \
        .name = n, .kind = OPTK_INT, .arg = OPTA_REQUIRED, OPT_FIELD(T, f), .min = lo, .max = hi,  \
        .unit = u, .argname = a, .help = h                                                         \
    }
#define OPT_ENUM(T, f, n, v, h)                                                                    \
    {                                                                                              \
        .name = n, .kind = OPTK_ENUM, .arg = OPTA_REQUIRED, OPT_FIELD(T, f), .values = v,          \
        .help = h                                                                                  \
    }
#define OPT_CALLBACK(n, s, ak, fn, c, a, h)                                                        \
    {                                                                                              \
        .name = n, .short_name = s, .kind = OPTK_CALLBACK, .arg = ak, .compl = c, .cb = fn,        \
        .argname = a, .help = h                                                                    \
    }

/* the fragments every command that takes the option shares */
extern const char *const opt_dtype_values[];   /* bf16 fp16 fp32 */
extern const char *const opt_backend_values[]; /* auto cpu cuda hip */
#define OPT_SYSROOT(T, f)                                                                          \
    OPT_STRING(T, f, "sysroot", 0, OPTC_SYSROOT, "DIR|TARBALL",                                    \
               "read another machine: a root directory or a collect snapshot")
#define OPT_CHECKS(T, f)                                                                           \
    OPT_STRING(T, f, "checks", 0, OPTC_FILE, "FILE", "the checks file instead of checks.yaml")
#define OPT_DTYPE(T, f) OPT_ENUM(T, f, "dtype", opt_dtype_values, "the pass's number format")
#define OPT_BACKEND(T, f) OPT_ENUM(T, f, "backend", opt_backend_values, "the GPU runtime, or cpu")
#define OPT_REQUIREMENTS(T, f)                                                                     \
    OPT_STRING(T, f, "requirements", 0, OPTC_FILE, "FILE",                                         \
               "a pip requirements file to hold the Python environment to")
#define OPT_PYTHON(T, f)                                                                           \
    OPT_STRING(T, f, "python", 0, OPTC_COMMAND, "PATH", "the Python interpreter to inspect")
#define OPT_PRESET(T, f)                                                                           \
    OPT_STRING(T, f, "preset", 0, OPTC_PRESET, "NAME|FILE.yaml",                                   \
               "a built-in VLA preset or a preset file")
/* an output: a file, or "-" for stdout where the command allows it */
#define OPT_OUT(T, f, n, s, a, h) OPT_STRING(T, f, n, s, OPTC_FILE, a, h)
#define OPT_NO_COLOR(T, f) OPT_FLAG(T, f, "no-color", 0, "no colour even on a terminal")
#define OPT_VERBOSE(T, f) OPT_FLAG(T, f, "verbose", 'v', "say more")
/* --help, --version and the end: every table's last rows */
/* clang-format off */
#define OPT_HELP_VERSION_END                                                                       \
    {.name = "help", .short_name = 'h', .kind = OPTK_HELP, .help = "this text"},                  \
    {.name = "version", .kind = OPTK_VERSION, .help = "the version"},                             \
    {.name = NULL}
/* clang-format on */

/* 0 when value is one of o->values, else -1 after the one message
 * ("--dtype must be bf16, fp16 or fp32, not 'x'"): for a callback that
 * takes a list of words and says more about one of the others */
int opt_enum_check(const struct optspec *o, const char *value);

enum { PARSE_DONE = 0, PARSE_ERROR = -1 };

/* parse argv[1..] (argv[0] is the command's name) by cs's table into base.
 * Options and positional arguments may come in any order ("--" ends the
 * options). Returns the index in the (permuted) argv of the first
 * positional argument (>= 1; argc when there are none), PARSE_DONE after
 * --help or --version (exit 0), or PARSE_ERROR after printing why and
 * where to find the usage (exit 2). */
int parse_options(int argc, char **argv, const struct cmd_spec *cs, void *base);

/* the generated usage: the synopsis line, the options with their help, then
 * more_help */
void parse_options_usage(FILE *out, const struct cmd_spec *cs);
/* "usage: rocm-vla-doctor CMD ARGS [options]" and one line naming --help */
void parse_options_usage_short(FILE *out, const struct cmd_spec *cs);

/* the completion's data for these commands (a bash fragment; see
 * completion/rocm-vla-doctor.bash) */
void parse_options_complete_table(FILE *out, const struct cmd_spec *const *cmds, size_t n);

#endif
