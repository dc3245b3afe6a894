/* hopwatch-gen: deterministic generator of INT telemetry report pcaps and their truth records.
 * Setup in main, then one loop: model a packet, encode it, maybe malform it, write pcap + truth. */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "hopwatch/record_json.h"
#include "json_writer.h"
#include "options.h"
#include "rng.h"
#include "scenario/scen.h"

struct counts {
	uint64_t packets, reports, records, valid_packets;
	uint64_t malformed[GEN_M_COUNT];
};

static FILE *open_out(const char *path, char **bufp)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "hopwatch-gen: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	*bufp = malloc(1 << 20);
	if (*bufp)
		setvbuf(f, *bufp, _IOFBF, 1 << 20);
	return f;
}

/* Pick the malformation of this packet: one uniform draw against the cumulative rates. */
static unsigned pick_malform(const struct gen_cfg *cfg, uint64_t u)
{
	double x = (double)(u >> 11) * 0x1.0p-53, cum = 0;
	for (unsigned k = 1; k < GEN_M_COUNT; k++) {
		cum += cfg->malform_rate[k];
		if (cfg->malform_rate[k] > 0 && x < cum)
			return k;
	}
	return GEN_M_NONE;
}

static void print_counts(FILE *f, const struct gen_cfg *cfg, const struct counts *c)
{
	fprintf(f, "packets %llu\nreports %llu\nrecords %llu\nvalid_packets %llu\n", (unsigned long long)c->packets,
	        (unsigned long long)c->reports, (unsigned long long)c->records, (unsigned long long)c->valid_packets);
	for (unsigned k = 1; k < GEN_M_COUNT; k++)
		if (cfg->malform_rate[k] > 0)
			fprintf(f, "malformed_%s %llu\n", gen_malform_name(k), (unsigned long long)c->malformed[k]);
}

static int write_summary(const char *path, const struct gen_cfg *cfg, const struct counts *c)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "hopwatch-gen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	struct hw_json j;
	hw_json_init_heap(&j);
	hw_json_obj(&j);
	hw_json_key(&j, "packets");
	hw_json_u64(&j, c->packets);
	hw_json_key(&j, "reports");
	hw_json_u64(&j, c->reports);
	hw_json_key(&j, "records");
	hw_json_u64(&j, c->records);
	hw_json_key(&j, "valid_packets");
	hw_json_u64(&j, c->valid_packets);
	hw_json_key(&j, "malformed");
	hw_json_obj(&j);
	for (unsigned k = 1; k < GEN_M_COUNT; k++)
		if (cfg->malform_rate[k] > 0) {
			hw_json_key(&j, gen_malform_name(k));
			hw_json_u64(&j, c->malformed[k]);
		}
	hw_json_obj_end(&j);
	hw_json_obj_end(&j);
	int bad = j.failed || fprintf(f, "%s\n", j.buf) < 0;
	hw_json_free(&j);
	return fclose(f) || bad ? 1 : 0;
}

static int run(const struct gen_cfg *cfg, const struct gen_paths *paths)
{
	static struct hw_record recs[GEN_MAX_COALESCE * (GEN_MAX_HOPS + 1)];
	char line[HW_RECORD_JSON_MAX];
	struct counts cnt;
	memset(&cnt, 0, sizeof(cnt));
	int rc = 1;
	char *pbuf = NULL, *tbuf = NULL;
	FILE *truth = NULL;
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	FILE *pf = open_out(paths->out, &pbuf);
	struct gen_pkt *k = calloc(1, sizeof(*k));
	struct gen_model *m = gen_model_new(cfg);
	pcap_dumper_t *dump = NULL;
	if (!pd || !pf || !k || !m)
		goto out;
	dump = pcap_dump_fopen(pd, pf);
	if (!dump) {
		fprintf(stderr, "hopwatch-gen: %s: %s\n", paths->out, pcap_geterr(pd));
		fclose(pf);
		goto out;
	}
	if (paths->truth && !(truth = open_out(paths->truth, &tbuf)))
		goto out;

	uint64_t rng = cfg->seed ^ 0x6d616c666f726dull; /* malformation draws, apart from the model's */
	uint64_t left = cfg->count;
	for (uint64_t i = 0; left > 0; i++) {
		const uint64_t sim = i * cfg->interval_ns;
		gen_model_packet(m, k, sim);
		if (cfg->format == GEN_FMT_TR20) {
			gen_tr2_begin(cfg, k);
			while (k->n_reps < cfg->coalesce && left > 0) {
				struct gen_report *r = &k->reps[k->n_reps];
				size_t len0 = k->len;
				struct gen_marks marks0 = k->marks;
				gen_model_report(m, k, r, sim);
				int forced = gen_tr2_add(cfg, k, r);
				if (k->n_reps > 0 && k->len > cfg->mtu) {
					k->len = len0; /* does not fit: the packet closes without it */
					k->marks = marks0;
					break;
				}
				k->n_reps++;
				left--;
				if (forced)
					break;
			}
			gen_tr2_close(cfg, k);
			gen_outer_finish(cfg, k);
		} else {
			gen_model_report(m, k, &k->reps[0], sim);
			k->n_reps = 1;
			left--;
			gen_build_frame(cfg, k);
		}
		unsigned kind = GEN_M_NONE;
		if (cfg->malform_any) {
			uint64_t u = gen_splitmix(&rng), rnd = gen_splitmix(&rng);
			kind = pick_malform(cfg, u);
			if (kind && !gen_malform_apply(cfg, k, kind, rnd))
				kind = GEN_M_NONE;
		}
		const uint64_t t = cfg->epoch_ns + sim;
		struct pcap_pkthdr h;
		h.ts.tv_sec = (time_t)(t / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(t % 1000000000u); /* nanoseconds in a nanosecond pcap */
		h.caplen = h.len = (bpf_u_int32)k->len;
		pcap_dump((u_char *)dump, &h, k->buf);
		cnt.packets++;
		cnt.reports += k->n_reps;
		if (kind) {
			cnt.malformed[kind]++;
			continue;
		}
		cnt.valid_packets++;
		unsigned n = gen_truth_records(cfg, k, t, recs, sizeof(recs) / sizeof(recs[0]));
		cnt.records += n;
		if (truth)
			for (unsigned j = 0; j < n; j++)
				fwrite(line, 1, hw_record_json(&recs[j], line), truth);
	}
	rc = 0;
out:
	if (dump) {
		if (pcap_dump_flush(dump) || ferror(pcap_dump_file(dump))) {
			fprintf(stderr, "hopwatch-gen: %s: write failed\n", paths->out);
			rc = 1;
		}
		pcap_dump_close(dump);
	}
	if (truth && fclose(truth)) {
		fprintf(stderr, "hopwatch-gen: %s: write failed\n", paths->truth);
		rc = 1;
	}
	if (pd)
		pcap_close(pd);
	free(pbuf);
	free(tbuf);
	free(k);
	gen_model_free(m);
	if (rc == 0) {
		print_counts(stderr, cfg, &cnt);
		if (paths->summary)
			rc = write_summary(paths->summary, cfg, &cnt);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct gen_cfg cfg;
	struct gen_paths paths;
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))) {
		gen_usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		hw_opts_version("hopwatch-gen", stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "scenario"))
		return sc_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return sc_send_main(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "reports")) {
		fprintf(stderr, "hopwatch-gen: %s: unknown command (commands: reports, scenario, send; see --help)\n",
		        argc < 2 ? "(none)" : argv[1]);
		return 2;
	}
	gen_cfg_default(&cfg);
	int e = gen_parse_args(argc - 1, argv + 1, &cfg, &paths);
	if (e == 1)
		return 0;
	if (e)
		return 2;
	return run(&cfg, &paths);
}
