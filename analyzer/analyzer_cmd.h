/* The subcommands of hopwatch-analyzer and what they share (the process's one Graphviz context).
 * A new subcommand adds its function here and one row to the table in analyzer_main.c. */
#ifndef HOPWATCH_ANALYZER_CMD_H
#define HOPWATCH_ANALYZER_CMD_H

#include <stdio.h>

/* Exit codes (DESIGN.md section 7). */
enum { HW_EXIT_OK = 0, HW_EXIT_FAIL = 1, HW_EXIT_USAGE = 2 };

/* The process's one GVC_t, created on first use, freed at exit.  NULL if Graphviz cannot start. */
void *hw_analyzer_gvc(void);
/* Graphviz is not thread-safe: every layout/render with that context, from any thread, is done between
 * these (run --svg-dir draws from its own thread). */
void hw_analyzer_gvc_lock(void);
void hw_analyzer_gvc_unlock(void);

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
