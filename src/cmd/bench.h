/* bench.h - the `bench` command: run the reference VLA pass of a preset
 * and print its per-stage latency table (docs/VLA.md). Parses its own
 * options; argv[0] is "bench". Returns the process exit code: 0 done, 1 the
 * pass produced NaN/Inf, 2 usage/preset/weights error, 3 internal error. */
#ifndef RVD_CMD_BENCH_H
#define RVD_CMD_BENCH_H

int vla_cmd_bench(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec bench_spec; /* its option table */

#endif
