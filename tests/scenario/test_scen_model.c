/* Scenario model checked by hand: queue growth at the excess rate, tail drops at the buffer, PFC
 * pausing the upstream port, ECMP choices among the up links, fat-tree paths, bad event options. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "scen.h"

struct fx {
	struct sc_cfg cfg;
	struct sc_topo t;
	struct sc_sim s;
};

/* A fabric with 100G host and 400G fabric links and no traffic: leaf-spine S,L,H or fat-tree K (s = 0). */
static struct fx *fixture(unsigned spines, unsigned leaves_or_k, unsigned hosts)
{
	static struct fx f;
	char err[256];
	memset(&f, 0, sizeof(f));
	sc_cfg_default(&f.cfg);
	f.cfg.load = f.cfg.tcp_load = 0;
	f.t.host_bps = 100000000000ull;
	f.t.fabric_bps = 400000000000ull;
	f.t.mtu = 9216;
	if (spines)
		assert_int_equal(sc_topo_leaf_spine(&f.t, spines, leaves_or_k, hosts, err, sizeof(err)), 0);
	else
		assert_int_equal(sc_topo_fat_tree(&f.t, leaves_or_k, err, sizeof(err)), 0);
	assert_int_equal(sc_sim_init(&f.s, &f.cfg, &f.t), 0);
	return &f;
}

/* 1 spine, 1 leaf, 3 hosts: host2 and host3 send to host1 through leaf1's port 1. */
static struct fx *small(void)
{
	return fixture(1, 1, 3);
}

static void done(struct fx *f)
{
	sc_sim_free(&f->s);
	sc_topo_free(&f->t);
}

static uint32_t host(const struct fx *f, const char *name)
{
	int32_t n = sc_topo_find_node(&f->t, name);
	assert_in_range(n, 0, INT32_MAX);
	return (uint32_t)n;
}

/* host2 and host3 each send 75 Gb/s of `kind` to host1; returns the queue at leaf1's port to host1. */
static uint32_t two_into_host1(struct fx *f, unsigned kind)
{
	assert_non_null(sc_flow_add(&f->s, host(f, "host2"), host(f, "host1"), kind, 75000000000ull, 0, UINT64_MAX));
	assert_non_null(sc_flow_add(&f->s, host(f, "host3"), host(f, "host1"), kind, 75000000000ull, 0, UINT64_MAX));
	const uint32_t out = (uint32_t)sc_topo_port_to(&f->t, host(f, "leaf1"), host(f, "host1"));
	return sc_q(out, kind == SC_F_TCP ? SC_Q_TCP : SC_Q_ROCE);
}

/* Two 75G flows into one 100G port: after the first step on the wire, the queue grows by
 * (150 - 100) Gb/s x 1 us = 6250 bytes per step, and the hop latency follows. */
static void queue_grows_at_the_difference(void **state)
{
	(void)state;
	struct fx *f = small();
	f->cfg.xoff_bytes = f->cfg.xon_bytes = 1e12; /* no PFC here */
	f->cfg.ecn_bytes = 1e12;
	const uint32_t q = two_into_host1(f, SC_F_ROCE), out = q / SC_QUEUES;
	double prev = 0;
	for (int k = 1; k <= 20; k++) {
		sc_sim_step(&f->s);
		double occ = f->s.occ[q];
		/* step 1: the frames are still on the host links */
		assert_true(fabs(occ - (k == 1 ? 0 : 6250.0 * (k - 1))) < 1e-3);
		if (k > 1)
			assert_true(fabs(occ - prev - 6250.0) < 1e-3);
		prev = occ;
	}
	/* 19 x 6250 = 118750 B at 100 Gb/s = 9500 ns of queueing + the 600 ns base */
	assert_int_equal(sc_latency_ns(&f->s, out, f->s.occ[q]), 10100);
	assert_true(fabs(f->s.qs[q].peak - 118750.0) < 1e-3);
	/* the history a report reads for hops its packet passed earlier: step 9 (9000-9999 ns) ended at
	 * 9 x 6250 bytes; before the start is the first step */
	assert_true(fabs(sc_occ_at(&f->s, q, 9500) - 56250.0) < 1e-3);
	assert_true(sc_occ_at(&f->s, q, -3000) == 0);
	assert_true(fabs(sc_occ_at(&f->s, q, 1000000) - f->s.occ[q]) < 1e-3);
	done(f);
}

/* Lossy (TCP) traffic above line rate fills the buffer and then loses exactly the excess. */
static void lossy_queue_drops_the_excess(void **state)
{
	(void)state;
	struct fx *f = small();
	f->cfg.lossy_buffer = 100000;
	f->cfg.ecn_bytes = 1e12;
	const uint32_t q = two_into_host1(f, SC_F_TCP);
	for (int k = 0; k < 100; k++)
		sc_sim_step(&f->s);
	/* 99 steps of 6250 B excess = 618750 B; the buffer keeps 100000 */
	assert_true(fabs(f->s.occ[q] - 100000.0) < 1e-3);
	assert_true(fabs(f->s.qs[q].dropped - (618750.0 - 100000.0)) < 1e-3);
	uint64_t dropped = f->s.flows[0].dropped_pkts + f->s.flows[1].dropped_pkts;
	assert_in_range(dropped, 344, 346); /* 518750 B in 1500 B frames */
	done(f);
}

/* PFC: with Xoff 50 KB per ingress port, the leaf pauses both hosts' NICs; the leaf queue stays
 * bounded, nothing is dropped, the backlog moves to the senders. */
static void pfc_pauses_upstream(void **state)
{
	(void)state;
	struct fx *f = small();
	f->cfg.xoff_bytes = 50000;
	f->cfg.xon_bytes = 40000;
	f->cfg.lossless_buffer = 1e6;
	const uint32_t q = two_into_host1(f, SC_F_ROCE);
	const uint32_t nic2 = sc_q(f->t.nodes[host(f, "host2")].port0, SC_Q_ROCE);
	double peak = 0;
	int paused_steps = 0;
	for (int k = 0; k < 500; k++) {
		sc_sim_step(&f->s);
		if (f->s.occ[q] > peak)
			peak = f->s.occ[q];
		paused_steps += f->s.paused[nic2];
	}
	/* each ingress port holds half the queue: pause at ~100 KB, plus what was on the wire */
	assert_true(peak > 100000 && peak < 100000 + 2 * 12500 + 6250);
	assert_in_range(paused_steps, 51, INT_MAX);
	/* the truth's pause stretches (queues[].paused_at_ns) are the NIC's paused steps: in order, apart (a
	 * stretch ends at a step before an unpaused one), as many steps as paused_ns counts, and as many as the
	 * loop saw give or take the last step (it reads the state after the step the stretches were noted in);
	 * host1 pauses nobody, so the leaf's queue to it has none */
	const struct sc_stretches *st = &f->s.qs[nic2].paused;
	const uint64_t step = f->cfg.step_ns;
	uint64_t steps = 0;
	assert_in_range(st->n, 1, UINT32_MAX);
	for (uint32_t i = 0; i < st->n; i++) {
		assert_true(st->at[i][0] <= st->at[i][1]);
		if (i)
			assert_true(st->at[i - 1][1] + step < st->at[i][0]);
		steps += (st->at[i][1] - st->at[i][0]) / step + 1;
	}
	assert_int_equal(steps * step, f->s.qs[nic2].paused_ns);
	assert_in_range(steps, (uint64_t)paused_steps - 1, (uint64_t)paused_steps + 1);
	assert_int_equal(f->s.qs[q].paused.n, 0);
	assert_true(f->s.qs[q].dropped == 0);
	assert_true(f->s.flows[0].backlog[0] > 0); /* held in the sender */
	/* the port's line rate is used: delivered = 500 steps minus the pipeline at 100 Gb/s */
	double delivered = (double)(f->s.flows[0].delivered_pkts + f->s.flows[1].delivered_pkts) * 4160;
	assert_true(delivered > 0.95 * 498 * 12500 && delivered <= 499 * 12500);
	done(f);
}

/* ECMP: the leaf's uplink is candidates[hash pick] over the up uplinks, in port order. */
static void ecmp_choice(void **state)
{
	(void)state;
	struct fx *f = fixture(4, 2, 2);
	const uint32_t leaf1 = (uint32_t)sc_topo_find_node(&f->t, "leaf1");
	const uint32_t h1 = (uint32_t)sc_topo_find_node(&f->t, "host1"),
	               h3 = (uint32_t)sc_topo_find_node(&f->t, "host3");
	assert_int_equal(f->t.nodes[leaf1].id, 0x0aff0101); /* 10.255.1.1 */
	assert_int_equal(f->t.nodes[sc_topo_find_node(&f->t, "spine3")].id, 0x0aff0003);
	unsigned used[4] = {0};
	for (int i = 0; i < 200; i++) {
		struct sc_flow *fl = sc_flow_add(&f->s, h1, h3, SC_F_ROCE, 1000000000ull, 0, UINT64_MAX);
		assert_non_null(fl);
		assert_int_equal(fl->n_hops, 4); /* NIC, leaf1 up, spine down, leaf2 to host3 */
		unsigned want = sc_ecmp_pick(fl->gf.hash, f->t.nodes[leaf1].id, 4);
		assert_int_equal(f->t.ports[fl->path[1]].num, 2 + 1 + want); /* ports 1-2 hosts, 3-6 spines */
		used[want]++;
		const uint32_t spine = f->t.ports[f->t.ports[fl->path[1]].peer].node;
		assert_int_equal(f->t.ports[fl->path[2]].node, spine);
		assert_int_equal(f->t.ports[f->t.ports[fl->path[2]].peer].node,
		                 (uint32_t)sc_topo_find_node(&f->t, "leaf2"));
	}
	for (int i = 0; i < 4; i++)
		assert_in_range(used[i], 21, UINT_MAX);
	/* leaf1's link to spine2 goes down: every flow re-hashes over the three left */
	const uint32_t down = f->t.nodes[leaf1].port0 + 3; /* Ethernet4 -> spine2 */
	f->t.ports[down].up = 0;
	for (uint32_t i = 0; i < f->s.n_flows; i++) {
		struct sc_flow *fl = &f->s.flows[i];
		sc_flow_route(&f->s, fl);
		static const unsigned left[3] = {3, 5, 6};
		assert_int_equal(f->t.ports[fl->path[1]].num, left[sc_ecmp_pick(fl->gf.hash, f->t.nodes[leaf1].id, 3)]);
		assert_int_not_equal(fl->path[1], down);
	}
	done(f);
}

static void fat_tree_paths(void **state)
{
	(void)state;
	char err[256];
	struct fx *f = fixture(0, 4, 0);
	assert_int_equal(f->t.n_nodes, 4 + 8 + 8 + 16);
	assert_int_equal(f->t.n_links, 48);
	assert_int_equal(sc_topo_fat_tree(&(struct sc_topo){0}, 5, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "even"));
	const uint32_t h1 = (uint32_t)sc_topo_find_node(&f->t, "host1");
	struct {
		const char *dst;
		unsigned hops;
	} cases[] = {{"host2", 2}, {"host3", 4}, {"host5", 6}, {"host16", 6}};
	for (unsigned i = 0; i < 4; i++) {
		struct sc_flow *fl = sc_flow_add(&f->s, h1, (uint32_t)sc_topo_find_node(&f->t, cases[i].dst), SC_F_TCP,
		                                 1, 0, UINT64_MAX);
		assert_non_null(fl);
		assert_int_equal(fl->n_hops, cases[i].hops);
		/* consecutive hops are neighbours: each egress port's far end is the next hop's node */
		for (unsigned h = 0; h + 1 < fl->n_hops; h++)
			assert_int_equal(f->t.ports[f->t.ports[fl->path[h]].peer].node,
			                 f->t.ports[fl->path[h + 1]].node);
		assert_int_equal(f->t.ports[f->t.ports[fl->path[fl->n_hops - 1]].peer].node,
		                 (uint32_t)sc_topo_find_node(&f->t, cases[i].dst));
	}
	assert_int_equal(f->t.nodes[sc_topo_find_node(&f->t, "edge1-1")].id, 0x0aff0101);
	assert_int_equal(f->t.nodes[sc_topo_find_node(&f->t, "agg2-1")].id, 0x0aff0203);
	assert_int_equal(f->t.nodes[sc_topo_find_node(&f->t, "core4")].id, 0x0aff0004);
	done(f);
}

static void bad_events_say_what_is_wrong(void **state)
{
	(void)state;
	struct fx *f = small();
	struct {
		const char *spec, *want;
	} cases[] = {
	    {"flood:dst=host1", "unknown event kind"},
	    {"incast:dst=host9", "host9: no such node"},
	    {"incast:dst=leaf1", "leaf1 is a switch, this event needs a host"},
	    {"report-loss:node=host1", "host1 is a host, this event needs a switch"},
	    {"incast:dst=host1,senders=1,gbps=200", "cannot send faster than its 100 Gb/s host link"},
	    {"incast:dst=host1,senders=5", "senders=5: the fabric has only 2 other hosts"},
	    {"incast:dst=host1,senders=1,start_us=9000", "after the run ends"},
	    {"link-down:link=leaf1:Ethernet9", "no such port"},
	    {"mtu-mismatch:link=leaf1:Ethernet4,mtu=9216", "not below the fabric's 9216"},
	    {"incast:dst=host1,colour=red", "unknown key 'colour'"},
	    {"report-loss:node=leaf1,fraction=2", "fraction=2 is not a number in range"},
	    {"link-down:start_us=5", "needs link=NODE:PORT"},
	};
	char err[512];
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sc_event_parse(cases[i].spec, &f->cfg, &f->t, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].want))
			fail_msg("%s: got '%s', want '%s'", cases[i].spec, err, cases[i].want);
	}
	assert_int_equal(f->cfg.n_events, 0);
	assert_int_equal(
	    sc_event_parse("link-down:link=leaf1:Ethernet4,start_us=10,dur_us=5", &f->cfg, &f->t, err, sizeof(err)), 0);
	assert_int_equal(f->cfg.events[0].start_ns, 10000);
	assert_int_equal(f->cfg.events[0].end_ns, 15000);
	done(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(queue_grows_at_the_difference),
	    cmocka_unit_test(lossy_queue_drops_the_excess),
	    cmocka_unit_test(pfc_pauses_upstream),
	    cmocka_unit_test(ecmp_choice),
	    cmocka_unit_test(fat_tree_paths),
	    cmocka_unit_test(bad_events_say_what_is_wrong),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
