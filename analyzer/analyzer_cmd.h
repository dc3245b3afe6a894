/* The subcommands of hopwatch-analyzer and what they share (the process's one Graphviz context).
 * A new subcommand adds its function here and one row to the table in analyzer_main.c. */
#ifndef HOPWATCH_ANALYZER_CMD_H
#define HOPWATCH_ANALYZER_CMD_H

#include <stdio.h>

/* Exit codes: 0 done, 1 a run failed (input, peer, output), 2 bad usage. */
enum { HW_EXIT_OK = 0, HW_EXIT_FAIL = 1, HW_EXIT_USAGE = 2 };

#include "graphviz_ctx.h"

/* `hopwatch-analyzer topology ...`: argv[0] is "topology". */
int hw_cmd_topology(int argc, char **argv);
void hw_cmd_topology_usage(FILE *out);

/* `hopwatch-analyzer run ...`: records in, early-warning events and alerts out. */
int hw_cmd_run(int argc, char **argv);
void hw_cmd_run_usage(FILE *out);

/* `hopwatch-analyzer diagnose ...`: PASS / SKIP / FAIL checklist of what `run` needs. */
int hw_cmd_diagnose(int argc, char **argv);
void hw_cmd_diagnose_usage(FILE *out);

#endif
