/* hopwatch-analyzer: dispatches to a subcommand (topology, and later replay, live, ...) and owns the
 * process-wide state they share, such as the single Graphviz context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer_cmd.h"
#include "options.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *out);
	const char *summary;
} commands[] = {
    {"topology", hw_cmd_topology, hw_cmd_topology_usage, "fabric topology from LLDP: checks, SVG, DOT, JSON"},
    {"run", hw_cmd_run, hw_cmd_run_usage, "records + topology in; early-warning events and alerts out"},
    {"diagnose", hw_cmd_diagnose, hw_cmd_diagnose_usage, "PASS/SKIP/FAIL checklist of what run needs"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: hopwatch-analyzer COMMAND [options]   (COMMAND --help for its options)\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return HW_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return HW_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		hw_opts_version("hopwatch-analyzer", stdout);
		return HW_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		int rc = commands[i].run(argc - 1, argv + 1);
		hw_analyzer_gvc_free();
		return rc;
	}
	fprintf(stderr, "hopwatch-analyzer: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return HW_EXIT_USAGE;
}
