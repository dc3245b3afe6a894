/* Unit tests of the lldpcli dump importer on real lldpd 1.0.16 dumps (tests/topo/data, both the json0 and
 * the singleton-collapsing json shape) and on malformed files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"

#ifndef TOPO_DATA
#error TOPO_DATA must name tests/topo/data
#endif

/* The fabric the dumps were taken from (data/README.md). */
static const char *const LINKS[] = {
    "host1.eth1 leaf1.eth3",  "host2.eth1 leaf3.eth3",  "leaf1.eth1 spine1.eth1", "leaf1.eth2 spine2.eth1",
    "leaf2.eth1 spine1.eth2", "leaf2.eth2 spine2.eth2", "leaf3.eth1 spine1.eth3", "leaf3.eth2 spine2.eth3",
};
#define N_LINKS (sizeof(LINKS) / sizeof(LINKS[0]))

static int has_link(const struct hw_topo *t, const char *want)
{
	for (uint32_t i = 0; i < t->n_links; i++) {
		const struct hw_topo_port *a = &t->ports[t->links[i].a], *b = &t->ports[t->links[i].b];
		char x[1100], y[1100];
		snprintf(x, sizeof(x), "%s.%s %s.%s", t->nodes[a->node].name, a->name, t->nodes[b->node].name, b->name);
		snprintf(y, sizeof(y), "%s.%s %s.%s", t->nodes[b->node].name, b->name, t->nodes[a->node].name, a->name);
		if ((strcmp(x, want) == 0 || strcmp(y, want) == 0) && t->links[i].up)
			return 1;
	}
	return 0;
}

static void check_fabric(const char *dir)
{
	struct hw_topo t;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	enum hw_topo_result r = hw_topo_load_lldpd_dir(&t, dir, 1000, &err);
	if (r != HW_TOPO_OK)
		fail_msg("%s", err.message);
	assert_int_equal(t.n_nodes, 7);
	assert_int_equal(t.n_links, N_LINKS);
	for (size_t i = 0; i < N_LINKS; i++)
		if (!has_link(&t, LINKS[i]))
			fail_msg("%s: missing link %s", dir, LINKS[i]);
	for (uint32_t i = 0; i < t.n_links; i++)
		assert_true(t.links[i].seen_by_a && t.links[i].seen_by_b);
	hw_topo_check(&t);
	for (uint32_t i = 0; i < t.n_events; i++)
		assert_int_equal(t.events[i].kind, HW_EV_LINK_UP);
	/* identities: leaf1's management address is 10.99.0.3, it routes; host1 is a station */
	uint32_t leaf1 = hw_topo_find_node_by_name(&t, "leaf1"), host1 = hw_topo_find_node_by_name(&t, "host1");
	assert_int_not_equal(leaf1, HW_TOPO_NONE);
	assert_int_equal(t.nodes[leaf1].mgmt_v4, 0x0a630003);
	assert_true(t.nodes[leaf1].cap_enabled & HW_LLDP_CAP_ROUTER);
	assert_true(t.nodes[host1].cap_enabled & HW_LLDP_CAP_STATION);
	hw_topo_assign_tiers(&t);
	assert_int_equal(t.nodes[leaf1].tier, HW_TIER_LEAF);
	assert_int_equal(t.nodes[host1].tier, HW_TIER_HOST);
	assert_int_equal(t.nodes[hw_topo_find_node_by_name(&t, "spine2")].tier, HW_TIER_SPINE);
	hw_topo_free(&t);
}

static void json0_dumps(void **state)
{
	(void)state;
	check_fabric(TOPO_DATA "/lldpd-json0");
}

static void json_dumps(void **state)
{
	(void)state;
	check_fabric(TOPO_DATA "/lldpd-json");
}

/* One switch's dump alone: its three neighbours, facts dated by the dump's ages. */
static void single_dump(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	assert_int_equal(hw_topo_load_lldpd_json(&t, TOPO_DATA "/lldpd-json0/leaf1.json", NULL, 1000, &err),
	                 HW_TOPO_OK);
	assert_int_equal(t.n_links, 3);
	assert_true(has_link(&t, "leaf1.eth1 spine1.eth1"));
	assert_true(has_link(&t, "host1.eth1 leaf1.eth3"));
	for (uint32_t i = 0; i < t.n_links; i++) {
		assert_true(t.links[i].last_seen <= 1000 && t.links[i].last_seen > 900); /* seconds, a double */
		assert_true(t.links[i].expires > t.links[i].last_seen);
	}
	hw_topo_free(&t);
}

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/hwt-topo-json-XXXXXX");
	int fd = mkstemp(path);
	assert_return_code(fd, errno);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void bad_files(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	char *p = write_tmp("{\"lldp\": [ {\"interface\": [");
	assert_int_equal(hw_topo_load_lldpd_json(&t, p, "x", 1, &err), HW_TOPO_E_JSON);
	assert_non_null(strstr(err.message, p));
	remove(p);
	p = write_tmp("{\"something\": 1}");
	assert_int_equal(hw_topo_load_lldpd_json(&t, p, "x", 1, &err), HW_TOPO_E_FORMAT);
	remove(p);
	assert_int_equal(hw_topo_load_lldpd_json(&t, "/nonexistent/x.json", NULL, 1, &err), HW_TOPO_E_IO);
	assert_int_equal(hw_topo_load_lldpd_dir(&t, "/nonexistent", 1, &err), HW_TOPO_E_IO);
	/* entries without chassis or port are skipped, not fatal */
	p = write_tmp("{\"lldp\": {\"interface\": {\"eth1\": {\"via\": \"LLDP\"}}}}");
	assert_int_equal(hw_topo_load_lldpd_json(&t, p, "sw", 1, &err), HW_TOPO_OK);
	assert_int_equal(t.n_links, 0);
	remove(p);
	hw_topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(json0_dumps),
	    cmocka_unit_test(json_dumps),
	    cmocka_unit_test(single_dump),
	    cmocka_unit_test(bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
