/* hopwatch-collector: receive INT telemetry reports (DPDK ports, or libpcap files and interfaces),
 * decode them into per-hop records, keep queue/sequence/path state, and feed the sinks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "diagnose.h"
#include "front.h"
#include "stream_shm.h"

#define PROG "hopwatch-collector"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "diagnose")) /* the checklist: diagnose.c */
		return hw_diagnose_main(argc - 1, argv + 1, argv[0]);

	static struct hw_collector col;
	hw_collector_config_default(&col.cfg);

	/* EAL options come before "--"; ours after it.  Without "--" every argument is ours. */
	int sep = 0;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
	char **ours = sep ? argv + sep : argv;
	int n_ours = sep ? argc - sep : argc;
	if (sep)
		ours[0] = argv[0];
	/* options and config file: the table in lib/collect/collector_config.c (flags override the file) */
	int prc = hw_opts_parse(&hw_collector_opts, &col.cfg, n_ours, ours, NULL);
	if (prc) {
		hw_collector_config_free(&col.cfg);
		return prc == HW_OPTS_HELP ? 0 : 2;
	}
	hw_collector_config_finish(&col.cfg);
	if (hw_shm_key_conflict(col.cfg.stream, col.cfg.stream_key)) {
		fprintf(stderr, PROG ": %s\n", hw_shm_key_conflict(col.cfg.stream, col.cfg.stream_key));
		hw_collector_config_free(&col.cfg);
		return 2;
	}

	hw_install_signal_handlers();
	char err[512] = "";
	int rc;
	if (col.cfg.pcap) {
		if (sep) {
			fprintf(stderr,
			        PROG ": EAL options are for DPDK input; --pcap reads with libpcap (see --help)\n");
			return 2;
		}
		rc = hw_pcap_front_run(&col, err, sizeof(err));
	} else {
		rc = hw_dpdk_front_run(&col, sep ? sep : 1, argv, err, sizeof(err));
	}
	if (rc && *err)
		fprintf(stderr, PROG ": %s\n", err);
	if (col.n_workers)
		hw_collector_print_counts(&col, stderr);
	hw_collector_config_free(&col.cfg);
	if (rc == 2)
		return 2;
	return rc || col.sink_errors ? 1 : 0;
}
