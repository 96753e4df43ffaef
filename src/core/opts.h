/* opts.h - the syntax half of parse_options (parse_options.h, which every
 * command's table goes through): getopt_long behind opt_next(), which
 * prints the one message for every way an option can be wrong, naming it
 * as it was typed.
 *
 * A value given as the next word (`--json FILE`) must not look like an
 * option: `--json --strict` is an error, not a report named "--strict". The
 * exceptions are "-" (stdout, where an option allows it; elsewhere the
 * option's own check refuses it) and a number (a negative one gets the
 * option's own range message). A value attached with '=' (`--json=--strict`)
 * or to a short option (`-o-name`) is taken as it is: the explicit way to
 * give a value that begins with '-'. */
#ifndef RVD_OPTS_H
#define RVD_OPTS_H

#include <getopt.h>

#define OPT_ERROR (-2)

/* getopt_long(argc, argv, shortopts, lo) with opterr off and the rules
 * above. shortopts is getopt's string without a leading ':' (a leading '+'
 * is kept). cmd ("diff") prefixes the message, or NULL for the main command.
 * Returns what getopt_long returns (an option, or -1 at the end), or
 * OPT_ERROR after printing one line:
 *   unknown option '--bogus' / '-x'
 *   option '--json' requires a value
 *   option '--strict' takes no value
 *   option '--j' is ambiguous (--json, --junit)
 *   option '--json' requires a value, not the option '--strict' (...) */
int opt_next(int argc, char **argv, const char *shortopts, const struct option *lo,
             const char *cmd);

#endif
