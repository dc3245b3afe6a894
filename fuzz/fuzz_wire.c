/* libFuzzer target for the wire parser: every input is parsed as a frame and as a report payload
 * under several configurations, and the output invariants are checked. */
#include <stdlib.h>

#include "hopwatch/wire.h"

static void check(const struct hw_parse_out *o, enum hw_result r)
{
	if ((unsigned)r >= HW_RESULT_COUNT)
		abort();
	if (r != HW_OK && (o->n_recs || o->n_reps))
		abort();
	if (o->n_recs > o->rec_cap || o->n_reps > o->rep_cap)
		abort();
	for (uint32_t i = 0; i < o->n_reps; i++) {
		const struct hw_report *rep = &o->reps[i];
		if ((uint32_t)rep->first + rep->n_hops > o->n_recs)
			abort();
		for (uint32_t j = 0; j < rep->n_hops; j++) {
			const struct hw_record *rec = &o->recs[rep->first + j];
			if (rec->hop_index != j || rec->path_len != rep->n_hops || rec->report_node != rep->node)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hw_record recs[300];
	static struct hw_report reps[64];
	struct hw_parser_config cfg[3];
	hw_parser_config_default(&cfg[0]);
	hw_parser_config_default(&cfg[1]);
	hw_parser_config_profile(&cfg[1], HW_PROFILE_GEANT);
	hw_parser_config_default(&cfg[2]);
	cfg[2].int_ports[0] = 5000;
	cfg[2].n_int_ports = 1;
	cfg[2].max_hops = 8;
	for (int i = 0; i < 3; i++) {
		struct hw_parse_out o = {.recs = recs, .rec_cap = 300, .reps = reps, .rep_cap = 64};
		check(&o, hw_parse_frame(&cfg[i], data, size, 1, &o));
		check(&o, hw_parse_report(&cfg[i], data, size, 1, &o));
	}
	return 0;
}
