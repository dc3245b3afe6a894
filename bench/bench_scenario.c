/* Benchmark: INT reports generated per second by the scenario model on one core, per report format,
 * into a pcap under a temporary directory (no records, no LLDP); prints one JSON document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "scen.h"

/* usage: bench_scenario [K [DURATION_US [DIR]]]: fat-tree:K (default 8), 50 % RoCE load, every packet sampled,
 * the pcap in a temporary directory under DIR (default /dev/shm: the generator, not the disk, is measured) */
int main(int argc, char **argv)
{
	const unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 8;
	const unsigned dur_us = argc > 2 ? (unsigned)atoi(argv[2]) : 5000;
	static const struct {
		const char *name;
		uint8_t format;
	} fmts[] = {{"tr2.0", GEN_FMT_TR20}, {"tr1.0", GEN_FMT_TR10}, {"tr0.5", GEN_FMT_TR05}};
	char dir[512], err[512], path[600];
	snprintf(dir, sizeof(dir), "%s/bench_scenario.XXXXXX", argc > 3 ? argv[3] : "/dev/shm");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	printf(
	    "{\"topology\":\"fat-tree:%u\",\"duration_us\":%u,\"load\":0.5,\"sample\":1,\"dir\":\"%s\",\"results\":[",
	    k, dur_us, dir);
	int rc = 0;
	for (unsigned i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && !rc; i++) {
		static struct sc_cfg cfg;
		static struct sc_topo t;
		static struct sc_sim s;
		sc_cfg_default(&cfg);
		cfg.format = fmts[i].format;
		cfg.sample = 1;
		cfg.load = 0.5;
		cfg.duration_ns = (uint64_t)dur_us * 1000;
		cfg.out_dir = dir;
		memset(&t, 0, sizeof(t));
		t.host_bps = 100000000000ull;
		t.fabric_bps = 400000000000ull;
		t.mtu = 9216;
		if (sc_topo_fat_tree(&t, k, err, sizeof(err)) || sc_sim_init(&s, &cfg, &t) ||
		    sc_traffic_build(&s, err, sizeof(err)) || !sc_out_open(&s, err, sizeof(err))) {
			fprintf(stderr, "bench_scenario: %s\n", err);
			return 1;
		}
		const double t0 = hw_mono_s();
		while (s.now < cfg.duration_ns)
			sc_sim_step(&s);
		uint64_t reports, records, packets;
		sc_out_counts(s.out, &reports, &records, &packets);
		rc = sc_out_close(s.out);
		const double secs = hw_mono_s() - t0;
		snprintf(path, sizeof(path), "%s/reports.pcap", dir);
		unlink(path);
		s.out = NULL;
		printf("%s{\"format\":\"%s\",\"reports\":%llu,\"records\":%llu,\"seconds\":%.3f,\"reports_per_second\":"
		       "%.0f}",
		       i ? "," : "", fmts[i].name, (unsigned long long)reports, (unsigned long long)records, secs,
		       (double)reports / secs);
		sc_sim_free(&s);
		sc_topo_free(&t);
	}
	printf("]}\n");
	rmdir(dir);
	return rc;
}
