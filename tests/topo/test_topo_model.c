/* Unit tests of the topology model and checks, fed with hand-built LLDP frames: link events (up, TTL 0,
 * expiry, neighbour changed, baseline, live reloads), MTU/PFC mismatch, one-sided, duplicate chassis, port matching,
 * tiers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_render.h"
#include "lldp_frames.h"

static uint32_t adv(struct hw_topo *t, struct test_end e, double time)
{
	uint8_t f[400];
	struct hw_lldp_info i;
	size_t n = test_lldp_frame(&e, f);
	assert_int_equal(hw_lldp_parse_frame(f, n, &i), HW_LLDP_OK);
	uint32_t p = hw_topo_advertise(t, &i, time);
	assert_int_not_equal(p, HW_TOPO_NONE);
	return p;
}

/* Both ends hear each other at `time`. */
static void pair(struct hw_topo *t, uint32_t a, uint32_t b, uint16_t ttl, double time)
{
	hw_topo_observe(t, a, b, ttl, time);
	hw_topo_observe(t, b, a, ttl, time);
}

static int count(const struct hw_topo *t, enum hw_topo_event_kind k)
{
	int n = 0;
	for (uint32_t i = 0; i < t->n_events; i++)
		n += t->events[i].kind == k;
	return n;
}

static const struct hw_topo_event *find(const struct hw_topo *t, enum hw_topo_event_kind k)
{
	for (uint32_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind == k)
			return &t->events[i];
	return NULL;
}

/* The event names both ends, in either order. */
static void assert_ends(const struct hw_topo_event *e, const char *n1, const char *p1, const char *n2, const char *p2)
{
	assert_non_null(e);
	int fwd = strcmp(e->a_node, n1) == 0;
	assert_string_equal(fwd ? e->a_node : e->b_node, n1);
	assert_string_equal(fwd ? e->a_port : e->b_port, p1);
	assert_string_equal(fwd ? e->b_node : e->a_node, n2);
	assert_string_equal(fwd ? e->b_port : e->a_port, p2);
}

static void mtu_mismatch(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	uint32_t a = adv(&t, (struct test_end){1, "eth1", "leafA", 120, 9216, -1, 0}, 10);
	uint32_t b = adv(&t, (struct test_end){2, "eth7", "spineB", 120, 1500, -1, 0}, 10);
	pair(&t, a, b, 120, 10);
	assert_int_equal(t.n_links, 1);
	assert_int_equal(count(&t, HW_EV_LINK_UP), 1);
	hw_topo_check(&t);
	assert_int_equal(count(&t, HW_EV_MTU_MISMATCH), 1);
	const struct hw_topo_event *e = find(&t, HW_EV_MTU_MISMATCH);
	assert_ends(e, "leafA", "eth1", "spineB", "eth7");
	assert_non_null(strstr(e->detail, "9216"));
	assert_non_null(strstr(e->detail, "1500"));
	assert_true(t.links[0].flags & HW_LINK_MTU_MISMATCH);
	assert_int_equal(count(&t, HW_EV_PFC_MISMATCH), 0);
	hw_topo_free(&t);
}

static void mtu_equal_or_unknown(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	uint32_t a = adv(&t, (struct test_end){1, "eth1", "a", 120, 9216, -1, 0}, 1);
	uint32_t b = adv(&t, (struct test_end){2, "eth1", "b", 120, 9216, -1, 0}, 1);
	uint32_t c = adv(&t, (struct test_end){3, "eth1", "c", 120, 0, -1, 0}, 1); /* lldpd: no TLV */
	uint32_t a2 = adv(&t, (struct test_end){1, "eth2", "a", 120, 1500, -1, 0}, 1);
	pair(&t, a, b, 120, 1);
	pair(&t, a2, c, 120, 1);
	hw_topo_check(&t);
	assert_int_equal(t.n_links, 2);
	assert_int_equal(count(&t, HW_EV_MTU_MISMATCH), 0);
	hw_topo_free(&t);
}

static void pfc_mismatch(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	uint32_t a = adv(&t, (struct test_end){1, "Ethernet0", "leaf1", 120, 0, 0x08, 0}, 1);
	uint32_t b = adv(&t, (struct test_end){2, "Ethernet4", "spine1", 120, 0, 0x18, 0}, 1);
	uint32_t c = adv(&t, (struct test_end){3, "Ethernet8", "spine2", 120, 0, 0x08, 0}, 1);
	uint32_t a2 = adv(&t, (struct test_end){1, "Ethernet1", "leaf1", 120, 0, 0x08, 0}, 1);
	pair(&t, a, b, 120, 1);
	pair(&t, a2, c, 120, 1);
	hw_topo_check(&t);
	assert_int_equal(count(&t, HW_EV_PFC_MISMATCH), 1);
	const struct hw_topo_event *e = find(&t, HW_EV_PFC_MISMATCH);
	assert_ends(e, "leaf1", "Ethernet0", "spine1", "Ethernet4");
	assert_non_null(strstr(e->detail, "3 vs 3,4"));
	assert_int_equal(t.ports[a].pfc_enable, 0x08);
	hw_topo_free(&t);
}

static void one_sided(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	uint32_t a = adv(&t, (struct test_end){1, "eth1", "leaf2", 120, 0, -1, 0}, 1);
	uint32_t b = adv(&t, (struct test_end){2, "eth2", "spine1", 120, 0, -1, 0}, 1);
	uint32_t b3 = adv(&t, (struct test_end){2, "eth3", "spine1", 120, 0, -1, 0}, 1);
	uint32_t c = adv(&t, (struct test_end){3, "eth1", "leaf3", 120, 0, -1, 0}, 1);
	uint32_t x = adv(&t, (struct test_end){4, "eth1", "host9", 120, 0, -1, 0}, 1);
	hw_topo_observe(&t, a, b, 120, 1); /* leaf2 sees spine1; spine1 does not see leaf2 */
	pair(&t, b3, c, 120, 1);           /* spine1 is an observer: we hold its view */
	hw_topo_observe(&t, c, x, 120, 1); /* host9 is not an observer: no finding for it */
	hw_topo_check(&t);
	assert_int_equal(count(&t, HW_EV_ONE_SIDED), 1);
	const struct hw_topo_event *e = find(&t, HW_EV_ONE_SIDED);
	assert_string_equal(e->a_node, "leaf2");
	assert_string_equal(e->b_node, "spine1");
	assert_string_equal(e->b_port, "eth2");
	hw_topo_free(&t);
}

static void duplicate_chassis(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	adv(&t, (struct test_end){7, "eth1", "leaf1", 120, 0, -1, 0}, 1);
	adv(&t, (struct test_end){7, "eth1", "leaf9", 120, 0, -1, 0}, 2); /* same chassis ID, other system */
	adv(&t, (struct test_end){7, "eth1", "leaf9", 120, 0, -1, 0}, 3);
	assert_int_equal(count(&t, HW_EV_DUPLICATE_CHASSIS), 1);
	const struct hw_topo_event *e = find(&t, HW_EV_DUPLICATE_CHASSIS);
	assert_string_equal(e->a_node, "leaf1");
	assert_string_equal(e->b_node, "leaf9");
	assert_non_null(strstr(e->detail, "02:00:00:00:00:07"));
	/* a rename after the old name expired is not a duplicate */
	adv(&t, (struct test_end){8, "eth1", "old", 4, 0, -1, 0}, 1);
	adv(&t, (struct test_end){8, "eth1", "new", 4, 0, -1, 0}, 100);
	assert_int_equal(count(&t, HW_EV_DUPLICATE_CHASSIS), 1);
	hw_topo_free(&t);
}

static void ttl_zero_expiry_and_change(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	uint32_t a = adv(&t, (struct test_end){1, "eth1", "a", 4, 0, -1, 0}, 100);
	uint32_t b = adv(&t, (struct test_end){2, "eth1", "b", 4, 0, -1, 0}, 100);
	pair(&t, a, b, 4, 100);
	hw_topo_expire(&t, 103);
	assert_int_equal(hw_topo_links_up(&t), 1);
	hw_topo_expire(&t, 105);
	assert_int_equal(hw_topo_links_up(&t), 0);
	assert_int_equal(count(&t, HW_EV_LINK_DISAPPEARED), 1);
	assert_ends(find(&t, HW_EV_LINK_DISAPPEARED), "a", "eth1", "b", "eth1");
	pair(&t, a, b, 4, 110); /* back */
	assert_int_equal(count(&t, HW_EV_LINK_UP), 2);
	uint32_t b0 = adv(&t, (struct test_end){2, "eth1", "b", 0, 0, -1, 0}, 111);
	assert_int_equal(b0, b);
	hw_topo_observe(&t, a, b0, 0, 111); /* b leaves */
	assert_int_equal(count(&t, HW_EV_LINK_DOWN), 1);
	assert_int_equal(hw_topo_links_up(&t), 0);
	assert_true(t.links[0].flags & HW_LINK_GONE);
	uint32_t c = adv(&t, (struct test_end){3, "eth5", "c", 4, 0, -1, 0}, 112);
	pair(&t, a, b, 4, 112);
	hw_topo_observe(&t, a, c, 4, 113); /* a's eth1 now sees c */
	assert_int_equal(count(&t, HW_EV_NEIGHBOR_CHANGED), 1);
	assert_ends(find(&t, HW_EV_NEIGHBOR_CHANGED), "a", "eth1", "c", "eth5");
	assert_int_equal(hw_topo_peer(&t, a), c);
	assert_int_equal(hw_topo_peer(&t, b), HW_TOPO_NONE);
	hw_topo_free(&t);
}

/* lldpd's default port ID is the MAC address, with the interface name in the description; the
 * neighbour's dump knows the same port by interface name: both must be one port. */
static void mac_port_id_matches_ifname(void **state)
{
	(void)state;
	static const uint8_t pdu[] = {0x02, 0x07, 0x04, 0x02, 0,    0,    0,    0,    0x09, 0x04, 0x07, 0x03,
	                              0x02, 0,    0,    0,    0,    0x21, 0x06, 0x02, 0,    120,  0x08, 0x04,
	                              'e',  't',  'h',  '3',  0x0a, 0x02, 's',  '1',  0,    0};
	struct hw_lldp_info i;
	struct hw_topo t;
	hw_topo_init(&t);
	assert_int_equal(hw_lldp_parse_pdu(pdu, sizeof(pdu), &i), HW_LLDP_OK);
	uint32_t p = hw_topo_advertise(&t, &i, 1);
	assert_string_equal(t.ports[p].name, "eth3");
	assert_string_equal(t.ports[p].id, "02:00:00:00:00:21");
	assert_int_equal(hw_topo_local_port(&t, t.ports[p].node, "eth3", 2), p);
	assert_int_equal(t.n_ports, 1);
	/* a shutdown LLDPDU (no description) keeps the name */
	i.has &= ~(uint32_t)HW_LLDP_HAS_PORT_DESCR;
	i.ttl = 0;
	assert_int_equal(hw_topo_advertise(&t, &i, 3), p);
	assert_string_equal(t.ports[p].name, "eth3");
	hw_topo_free(&t);
}

static void tiers(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	const uint16_t R = HW_LLDP_CAP_ROUTER, S = HW_LLDP_CAP_STATION;
	uint32_t h = adv(&t, (struct test_end){1, "eth0", "h1", 120, 0, -1, S}, 1);
	uint32_t l = adv(&t, (struct test_end){2, "e1", "tor-a", 120, 0, -1, R}, 1);
	uint32_t lu = adv(&t, (struct test_end){2, "e2", "tor-a", 120, 0, -1, R}, 1);
	uint32_t s = adv(&t, (struct test_end){3, "e1", "x3", 120, 0, -1, R}, 1);
	uint32_t su = adv(&t, (struct test_end){3, "e2", "x3", 120, 0, -1, R}, 1);
	uint32_t ss = adv(&t, (struct test_end){4, "e1", "x4", 120, 0, -1, R}, 1);
	uint32_t sd = adv(&t, (struct test_end){3, "e3", "x3", 120, 0, -1, R}, 1);
	uint32_t l2 = adv(&t, (struct test_end){5, "e1", "leaf-b", 120, 0, -1, R}, 1); /* no hosts below */
	pair(&t, h, l, 120, 1);
	pair(&t, lu, s, 120, 1);
	pair(&t, su, ss, 120, 1);
	pair(&t, sd, l2, 120, 1);
	hw_topo_assign_tiers(&t);
	assert_int_equal(t.nodes[t.ports[h].node].tier, HW_TIER_HOST);
	assert_int_equal(t.nodes[t.ports[l].node].tier, HW_TIER_LEAF);
	assert_int_equal(t.nodes[t.ports[s].node].tier, HW_TIER_SPINE);
	assert_int_equal(t.nodes[t.ports[ss].node].tier, HW_TIER_SUPERSPINE);
	assert_int_equal(t.nodes[t.ports[l2].node].tier, HW_TIER_LEAF); /* by name, not distance */
	assert_string_equal(hw_topo_tier_name(HW_TIER_SPINE), "spine");
	hw_topo_free(&t);
}

/* Snapshots: a link up in the earlier JSON output and not up now is LinkDisappeared. */
static void baseline(void **state)
{
	(void)state;
	struct hw_topo t, u;
	hw_topo_init(&t);
	hw_topo_init(&u);
	pair(&t, adv(&t, (struct test_end){1, "eth1", "a", 120, 0, -1, 0}, 1),
	     adv(&t, (struct test_end){2, "eth1", "b", 120, 0, -1, 0}, 1), 120, 1);
	pair(&t, adv(&t, (struct test_end){1, "eth2", "a", 120, 0, -1, 0}, 1),
	     adv(&t, (struct test_end){3, "eth9", "c", 120, 0, -1, 0}, 1), 120, 1);
	char path[] = "/tmp/hwt-topo-baseline-XXXXXX";
	close(mkstemp(path));
	assert_int_equal(hw_topo_write_json(&t, NULL, path, NULL), HW_TOPO_OK);
	/* now only b is still there, seen from its other side */
	pair(&u, adv(&u, (struct test_end){2, "eth1", "b", 120, 0, -1, 0}, 5),
	     adv(&u, (struct test_end){1, "eth1", "a", 120, 0, -1, 0}, 5), 120, 5);
	assert_int_equal(hw_topo_compare_baseline(&u, path, 6, NULL), HW_TOPO_OK);
	remove(path);
	assert_int_equal(count(&u, HW_EV_LINK_DISAPPEARED), 1);
	assert_ends(find(&u, HW_EV_LINK_DISAPPEARED), "a", "eth2", "c", "eth9");
	struct hw_topo_error err = {0};
	assert_int_equal(hw_topo_compare_baseline(&u, "/nonexistent.json", 6, &err), HW_TOPO_E_IO);
	hw_topo_free(&t);
	hw_topo_free(&u);
}

/* A load of the fabric a.eth1--b.eth1 (heard from b first), with a.eth2--c.eth9 when ac, d.eth1--b.eth2 when bd. */
static void load(struct hw_topo *t, int ac, int bd)
{
	hw_topo_init(t);
	pair(t, adv(t, (struct test_end){2, "eth1", "b", 120, 0, -1, 0}, 1),
	     adv(t, (struct test_end){1, "eth1", "a", 120, 0, -1, 0}, 1), 120, 1);
	if (ac)
		pair(t, adv(t, (struct test_end){1, "eth2", "a", 120, 0, -1, 0}, 1),
		     adv(t, (struct test_end){3, "eth9", "c", 120, 0, -1, 0}, 1), 120, 1);
	if (bd)
		pair(t, adv(t, (struct test_end){4, "eth1", "d", 120, 0, -1, 0}, 1),
		     adv(t, (struct test_end){2, "eth2", "b", 120, 0, -1, 0}, 1), 120, 1);
}

static void assert_live_ends(const struct hw_topo_live *l, uint32_t i, const char *n1, const char *p1, const char *n2,
                             const char *p2)
{
	const struct hw_topo_live_link *k = &l->links[l->changes[i].link];
	assert_string_equal(k->a_node, n1);
	assert_string_equal(k->a_port, p1);
	assert_string_equal(k->b_node, n2);
	assert_string_equal(k->b_port, p2);
}

static void live_reload(void **state)
{
	(void)state;
	struct hw_topo base, gone, back;
	struct hw_topo_live l;
	load(&base, 1, 0);
	load(&gone, 0, 0);
	load(&back, 1, 1);
	/* the baseline's two links are known and up, and raise nothing */
	assert_int_equal(hw_topo_live_init(&l, &base), 0);
	assert_int_equal(l.n_links, 2);
	assert_int_equal(l.n_changes, 0);
	/* a reload without a--c: one LinkDown, its ends in name order (a < c) */
	assert_int_equal(hw_topo_live_update(&l, &gone), 0);
	assert_int_equal(l.n_changes, 1);
	assert_int_equal(l.changes[0].kind, HW_EV_LINK_DOWN);
	assert_live_ends(&l, 0, "a", "eth2", "c", "eth9");
	l.links[l.changes[0].link].down_id = 7; /* the caller's LinkDown, kept with the link */
	/* the same again: nothing changed since */
	assert_int_equal(hw_topo_live_update(&l, &gone), 0);
	assert_int_equal(l.n_changes, 0);
	/* a--c back (a LinkUp, its LinkDown's id still there) and b--d new: names sort b.eth2 < d.eth1; the
	 * changes come in link name order: a--c, then b--d */
	assert_int_equal(hw_topo_live_update(&l, &back), 0);
	assert_int_equal(l.n_links, 3);
	assert_int_equal(l.n_changes, 2);
	assert_int_equal(l.changes[0].kind, HW_EV_LINK_UP);
	assert_int_equal(l.changes[0].is_new, 0);
	assert_live_ends(&l, 0, "a", "eth2", "c", "eth9");
	assert_int_equal(l.links[l.changes[0].link].down_id, 7);
	assert_int_equal(l.changes[1].kind, HW_EV_LINK_UP);
	assert_int_equal(l.changes[1].is_new, 1);
	assert_live_ends(&l, 1, "b", "eth2", "d", "eth1");
	/* and a reload of the same: nothing */
	assert_int_equal(hw_topo_live_update(&l, &back), 0);
	assert_int_equal(l.n_changes, 0);
	hw_topo_live_free(&l);
	hw_topo_free(&base);
	hw_topo_free(&gone);
	hw_topo_free(&back);
}

/* A reload where a.eth2 hears d.eth1 instead of c.eth9: LinkDown a--c, LinkUp a--d, then NeighborChanged on
 * a.eth2 (the end both links share: the a end of a.eth2--d.eth1, as a < d) naming c.eth9 as the old link. */
static void live_neighbor_changed(void **state)
{
	(void)state;
	struct hw_topo base, moved;
	struct hw_topo_live l;
	load(&base, 1, 0);
	hw_topo_init(&moved);
	pair(&moved, adv(&moved, (struct test_end){2, "eth1", "b", 120, 0, -1, 0}, 1),
	     adv(&moved, (struct test_end){1, "eth1", "a", 120, 0, -1, 0}, 1), 120, 1);
	pair(&moved, adv(&moved, (struct test_end){1, "eth2", "a", 120, 0, -1, 0}, 1),
	     adv(&moved, (struct test_end){4, "eth1", "d", 120, 0, -1, 0}, 1), 120, 1);
	assert_int_equal(hw_topo_live_init(&l, &base), 0);
	assert_int_equal(hw_topo_live_update(&l, &moved), 0);
	/* links by name: a.eth1--b.eth1, a.eth2--c.eth9, a.eth2--d.eth1; changes in that order, then the
	 * NeighborChanged derived from the pair */
	assert_int_equal(l.n_changes, 3);
	assert_int_equal(l.changes[0].kind, HW_EV_LINK_DOWN);
	assert_live_ends(&l, 0, "a", "eth2", "c", "eth9");
	assert_int_equal(l.changes[1].kind, HW_EV_LINK_UP);
	assert_live_ends(&l, 1, "a", "eth2", "d", "eth1");
	assert_int_equal(l.changes[2].kind, HW_EV_NEIGHBOR_CHANGED);
	assert_live_ends(&l, 2, "a", "eth2", "d", "eth1");
	assert_int_equal(l.changes[2].end, 0);
	assert_int_equal(l.changes[2].was, l.changes[0].link);
	/* a link going down alone (b.eth1 loses a.eth1, nothing new) is no NeighborChanged */
	struct hw_topo alone;
	hw_topo_init(&alone);
	pair(&alone, adv(&alone, (struct test_end){1, "eth2", "a", 120, 0, -1, 0}, 1),
	     adv(&alone, (struct test_end){4, "eth1", "d", 120, 0, -1, 0}, 1), 120, 1);
	assert_int_equal(hw_topo_live_update(&l, &alone), 0);
	assert_int_equal(l.n_changes, 1);
	assert_int_equal(l.changes[0].kind, HW_EV_LINK_DOWN);
	assert_live_ends(&l, 0, "a", "eth1", "b", "eth1");
	hw_topo_live_free(&l);
	hw_topo_free(&base);
	hw_topo_free(&moved);
	hw_topo_free(&alone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(mtu_mismatch),
	    cmocka_unit_test(mtu_equal_or_unknown),
	    cmocka_unit_test(pfc_mismatch),
	    cmocka_unit_test(one_sided),
	    cmocka_unit_test(duplicate_chassis),
	    cmocka_unit_test(ttl_zero_expiry_and_change),
	    cmocka_unit_test(mac_port_id_matches_ifname),
	    cmocka_unit_test(tiers),
	    cmocka_unit_test(baseline),
	    cmocka_unit_test(live_reload),
	    cmocka_unit_test(live_neighbor_changed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
