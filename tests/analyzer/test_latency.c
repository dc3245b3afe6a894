/* Unit tests of the latency matrix with hand-made reports between known leaves: exact averages, p99.9
 * within the documented bucket error, what is skipped and counted, the leaf bound, names, and the CSV. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/analyzer.h"

enum { LEAF_A = 11, LEAF_B = 12, SPINE = 100 };

static uint32_t seq;
static uint64_t now = 1000000000ull;

/* One report of n hops through nodes[], hop i with latency lats[i]; hops whose bit is set in no_lat carry
 * no hop_latency, hops whose bit is set in missing are not sent at all. */
static void report(struct hw_analyzer *a, const uint32_t *nodes, const uint32_t *lats, unsigned n, uint8_t flags,
                   uint32_t no_lat, uint32_t missing)
{
	struct hw_record r[16];
	unsigned k = 0;
	now += 1000;
	seq++;
	for (unsigned i = 0; i < n; i++) {
		if (missing & (1u << i))
			continue;
		struct hw_record *x = &r[k++];
		memset(x, 0, sizeof(*x));
		x->time_ns = now;
		x->valid = HW_V_PORTS | ((no_lat & (1u << i)) ? 0 : HW_V_HOP_LATENCY);
		x->format = HW_FORMAT_TR20;
		x->report_node = nodes[n - 1];
		x->report_seq = seq;
		x->report_flags = flags;
		x->hop_index = (uint8_t)i;
		x->path_len = (uint8_t)n;
		x->node_id = nodes[i];
		x->ingress_port = 1;
		x->egress_port = 2;
		x->hop_latency = lats[i];
	}
	hw_an_ingest(a, r, k);
}

static struct hw_analyzer *mk(const struct hw_topo *t)
{
	struct hw_an_config c;
	hw_an_config_default(&c);
	char err[256];
	struct hw_analyzer *a = hw_an_create(&c, t, NULL, NULL, NULL, err, sizeof(err));
	assert_non_null(a);
	return a;
}

/* The matrix's counters, all of them (after finishing the report in progress). */
static void expect_stats(struct hw_analyzer *a, uint64_t reports, uint64_t short_path, uint64_t partial,
                         uint64_t no_latency, uint64_t leaves_full, uint32_t n_leaves)
{
	hw_an_finish(a);
	struct hw_an_lat_stats st;
	hw_an_lat_stats(hw_an_latency(a), &st);
	assert_int_equal(st.reports, reports);
	assert_int_equal(st.short_path, short_path);
	assert_int_equal(st.partial, partial);
	assert_int_equal(st.no_latency, no_latency);
	assert_int_equal(st.leaves_full, leaves_full);
	assert_int_equal(st.n_leaves, n_leaves);
}

static uint32_t leaf(const struct hw_an_latmatrix *m, const char *name)
{
	struct hw_an_lat_stats st;
	hw_an_lat_stats(m, &st);
	for (uint32_t i = 0; i < st.n_leaves; i++)
		if (strcmp(hw_an_lat_leaf_name(m, i), name) == 0)
			return i;
	fail_msg("no leaf %s", name);
	return 0;
}

/* A -> spine -> B: 1000 reports with path latency 600 + i (hops 100, 200 + i, 300), i = 0..999.
 * B -> A directly (2 hops): ten of 3 + 4 = 7 and one of 5 + 5 = 10. */
static void feed_known(struct hw_analyzer *a)
{
	const uint32_t ab[3] = {LEAF_A, SPINE, LEAF_B}, ba[2] = {LEAF_B, LEAF_A};
	for (uint32_t i = 0; i < 1000; i++) {
		const uint32_t lat[3] = {100, 200 + i, 300};
		report(a, ab, lat, 3, HW_RF_TRACKED_FLOW, 0, 0);
	}
	for (int i = 0; i < 10; i++)
		report(a, ba, (const uint32_t[]){3, 4}, 2, 0, 0, 0);
	report(a, ba, (const uint32_t[]){5, 5}, 2, HW_RF_CONGESTED_QUEUE, 0, 0);
}

static void test_known_cells(void **state)
{
	(void)state;
	struct hw_analyzer *a = mk(NULL);
	feed_known(a);
	expect_stats(a, 1011, 0, 0, 0, 0, 2); /* 2 leaves: the spine is neither first nor last hop */
	const struct hw_an_latmatrix *m = hw_an_latency(a);
	uint32_t A = leaf(m, "11"), B = leaf(m, "12");
	assert_int_equal(hw_an_lat_leaf_node_id(m, A), LEAF_A);
	struct hw_an_lat_cell c;
	assert_true(hw_an_lat_cell(m, A, B, &c));
	assert_int_equal(c.count, 1000);
	/* mean of 600 .. 1599 */
	assert_true(c.avg == 1099.5);
	assert_int_equal(c.min, 600);
	assert_int_equal(c.max, 1599);
	/* p99.9: the ceil(0.999 * 1000) = 999th smallest = 1598.  Its bucket: 1598 is in [1024, 2048), 16
	 * buckets of 64 there, [1536, 1600): midpoint 1568, 30 from the exact value, within 1598/32. */
	assert_int_equal(c.p999, 1568);
	assert_in_range(c.p999, 1598 - 1598 / 32, 1598 + 1598 / 32);
	/* below 16 exact: 11 values, the 11th smallest is 10 */
	assert_true(hw_an_lat_cell(m, B, A, &c));
	assert_int_equal(c.count, 11);
	assert_true(c.avg == 80.0 / 11.0);
	assert_int_equal(c.p999, 10);
	assert_int_equal(hw_an_lat_quantile(m, B, A, 0.5), 7);
	/* no report went A -> A */
	assert_false(hw_an_lat_cell(m, A, A, &c));
	assert_int_equal(c.count, 0);
	hw_an_destroy(a);
}

/* The matrix over a window: a mark after 1000 reports A -> B of 600 + i; then 100 A -> B of 5000 and the 11
 * B -> A of feed_known.  Since the mark A -> B holds the 100 alone: mean exactly 5000; p99.9 the 100th smallest,
 * 5000, in [4096, 8192) (16 buckets of 256), bucket [4864, 5120): midpoint 4992, within 5000/32.  B -> A was
 * empty at the mark: since it, the whole cell (11, p99.9 10, min 7, max 10).  A mark taken now: nothing since. */
static void test_window_since_mark(void **state)
{
	(void)state;
	struct hw_analyzer *a = mk(NULL);
	const uint32_t ab[3] = {LEAF_A, SPINE, LEAF_B}, ba[2] = {LEAF_B, LEAF_A};
	for (uint32_t i = 0; i < 1000; i++)
		report(a, ab, (const uint32_t[]){100, 200 + i, 300}, 3, 0, 0, 0);
	hw_an_finish(a); /* the last report is placed */
	const struct hw_an_latmatrix *m = hw_an_latency(a);
	struct hw_an_lat_mark *k = hw_an_lat_mark(m);
	assert_non_null(k);
	for (int i = 0; i < 100; i++)
		report(a, ab, (const uint32_t[]){1000, 2000, 2000}, 3, 0, 0, 0);
	for (int i = 0; i < 10; i++)
		report(a, ba, (const uint32_t[]){3, 4}, 2, 0, 0, 0);
	report(a, ba, (const uint32_t[]){5, 5}, 2, 0, 0, 0);
	hw_an_finish(a);
	uint32_t A = leaf(m, "11"), B = leaf(m, "12");
	struct hw_an_lat_cell c;
	assert_int_equal(hw_an_lat_cell_since(m, k, A, B, &c), 1);
	assert_int_equal(c.count, 100);
	assert_true(c.avg == 5000.0);
	assert_int_equal(c.p999, 4992);
	assert_int_equal(c.min, 0); /* not known over a window */
	assert_int_equal(hw_an_lat_cell_since(m, k, B, A, &c), 1);
	assert_int_equal(c.count, 11);
	assert_int_equal(c.p999, 10);
	assert_int_equal(c.min, 7);
	assert_int_equal(c.max, 10);
	/* count and mean alone (the /metrics window): A -> B 100 of mean 5000; B -> A 10 of 3 + 4 = 7 and 1 of
	 * 5 + 5 = 10: 11 of mean 80 / 11; nothing since k2 (below) */
	uint64_t n;
	double mean;
	assert_int_equal(hw_an_lat_mean_since(m, k, A, B, &n, &mean), 1);
	assert_int_equal(n, 100);
	assert_true(mean == 5000.0);
	assert_int_equal(hw_an_lat_mean_since(m, k, B, A, &n, &mean), 1);
	assert_int_equal(n, 11);
	assert_true(fabs(mean - 80.0 / 11.0) < 1e-9);
	/* the whole run still: 1100 A -> B */
	assert_true(hw_an_lat_cell(m, A, B, &c));
	assert_int_equal(c.count, 1100);
	assert_int_equal(hw_an_lat_cell_since(m, NULL, A, B, &c), 1);
	assert_int_equal(c.count, 1100);
	struct hw_an_lat_mark *k2 = hw_an_lat_mark(m);
	assert_non_null(k2);
	assert_int_equal(hw_an_lat_cell_since(m, k2, A, B, &c), 0);
	assert_int_equal(hw_an_lat_cell_since(m, k2, B, A, &c), 0);
	assert_int_equal(hw_an_lat_cell_since(m, k2, A, A, &c), 0);
	assert_int_equal(hw_an_lat_mean_since(m, k2, A, B, &n, &mean), 0);
	assert_int_equal(n, 0);
	hw_an_lat_mark_free(k2);
	hw_an_lat_mark_free(k);
	hw_an_destroy(a);
}

static void test_skipped_and_counted(void **state)
{
	(void)state;
	struct hw_analyzer *a = mk(NULL);
	const uint32_t ab[3] = {LEAF_A, SPINE, LEAF_B}, lat[3] = {100, 100, 100};
	report(a, ab, lat, 3, HW_RF_INTERMEDIATE, 0, 0);                    /* partial: stops at a transit */
	report(a, ab, lat, 3, HW_RF_DROPPED | HW_RF_CONGESTED_QUEUE, 0, 0); /* partial: dropped */
	report(a, ab, lat, 3, 0, 0, 1u << 1);                               /* partial: hop 1 never came */
	report(a, ab, lat, 3, 0, 1u << 2, 0);                               /* no_latency: hop 2 */
	report(a, ab, lat, 1, HW_RF_POSTCARD, 0, 0);                        /* short_path */
	report(a, ab, lat, 3, 0, 0, 0);                                     /* the one that counts */
	expect_stats(a, 1, 1, 3, 1, 0, 2);
	struct hw_an_lat_cell c;
	const struct hw_an_latmatrix *m = hw_an_latency(a);
	assert_true(hw_an_lat_cell(m, leaf(m, "11"), leaf(m, "12"), &c));
	assert_int_equal(c.count, 1);
	assert_true(c.avg == 300.0);
	hw_an_destroy(a);
}

/* Sources 1..70 each send one report to leaf 1000: the first report brings 2 leaves, sources 2..63 one
 * each (64 in all); sources 64..70 do not fit. */
static void test_leaf_bound(void **state)
{
	(void)state;
	assert_int_equal(HW_AN_LAT_LEAVES, 64);
	struct hw_analyzer *a = mk(NULL);
	for (uint32_t s = 1; s <= 70; s++)
		report(a, (const uint32_t[]){s, 1000}, (const uint32_t[]){50, 50}, 2, 0, 0, 0);
	expect_stats(a, 63, 0, 0, 0, 7, 64);
	/* a known pair still counts once the table is full */
	report(a, (const uint32_t[]){5, 1000}, (const uint32_t[]){50, 50}, 2, 0, 0, 0);
	expect_stats(a, 64, 0, 0, 0, 7, 64);
	hw_an_destroy(a);
}

/* ---- CSV ---- */

/* Split one CSV line (RFC 4180 quoting) into at most max fields; returns the number of fields. */
static int csv_split(const char *line, char fields[][128], int max)
{
	int n = 0;
	const char *p = line;
	while (n < max) {
		size_t o = 0;
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				fields[n][o++] = *p;
			}
			p++;
		} else {
			while (*p && *p != ',' && *p != '\n')
				fields[n][o++] = *p++;
		}
		fields[n++][o] = '\0';
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

/* The known cells through the CSV and back, with the topology naming the leaves: "leaf,10" (a comma to
 * quote) for A, "leaf9" for B; natural order puts "leaf,10" first (',' < '9'). */
static void test_csv_round_trip(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	const char *names[2] = {"leaf,10", "leaf9"};
	const uint32_t ids[2] = {LEAF_A, LEAF_B};
	for (int i = 0; i < 2; i++) {
		struct hw_lldp_info info;
		memset(&info, 0, sizeof(info));
		info.chassis.subtype = 7;
		snprintf(info.chassis.text, sizeof(info.chassis.text), "chassis-%d", i);
		info.has = HW_LLDP_HAS_SYS_NAME;
		snprintf(info.sys_name, sizeof(info.sys_name), "%s", names[i]);
		info.ttl = 120;
		uint32_t n = hw_topo_node_of(&t, &info, 1.0);
		assert_int_not_equal(n, HW_TOPO_NONE);
		t.nodes[n].node_id = ids[i];
	}
	struct hw_analyzer *a = mk(&t);
	feed_known(a);
	hw_an_finish(a);
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(hw_an_lat_write_csv(hw_an_latency(a), f), 0);
	rewind(f);
	char line[512], fld[8][128];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "source,destination,reports,avg_ns,p999_ns,min_ns,max_ns\n");
	struct {
		const char *src, *dst;
		unsigned long long count, p999, min, max;
		double avg;
	} want[2] = {{"leaf,10", "leaf9", 1000, 1568, 600, 1599, 1099.5},
	             {"leaf9", "leaf,10", 11, 10, 7, 10, 80.0 / 11}};
	for (int i = 0; i < 2; i++) {
		assert_non_null(fgets(line, sizeof(line), f));
		assert_int_equal(csv_split(line, fld, 8), 7);
		assert_string_equal(fld[0], want[i].src);
		assert_string_equal(fld[1], want[i].dst);
		assert_int_equal(strtoull(fld[2], NULL, 10), want[i].count);
		assert_true(fabs(strtod(fld[3], NULL) - want[i].avg) <= 0.05); /* printed with one decimal */
		assert_int_equal(strtoull(fld[4], NULL, 10), want[i].p999);
		assert_int_equal(strtoull(fld[5], NULL, 10), want[i].min);
		assert_int_equal(strtoull(fld[6], NULL, 10), want[i].max);
	}
	assert_null(fgets(line, sizeof(line), f)); /* no row for the empty cells */
	fclose(f);
	hw_an_destroy(a);
	hw_topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_known_cells),         cmocka_unit_test(test_window_since_mark),
	    cmocka_unit_test(test_skipped_and_counted), cmocka_unit_test(test_leaf_bound),
	    cmocka_unit_test(test_csv_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
