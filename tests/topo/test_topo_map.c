/* Unit tests of INT node id / port placement: the default (node id = IPv4 management address), the map file
 * (names, port numbers, port formats, tiers), rejected map files, and the tally of unplaced (node, port). */
#include <errno.h>
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
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"
#include "lldp_frames.h"

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/hwt-topo-map-XXXXXX");
	int fd = mkstemp(path);
	assert_return_code(fd, errno);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* leaf1 (mgmt 10.0.0.11) with ports Ethernet0, Ethernet4; spine1 (no IPv4) with port swp1. */
static void fabric(struct hw_topo *t)
{
	static const uint8_t leaf_pdu_head[] = {0x02, 0x07, 0x04, 0x02, 0, 0, 0, 0, 0x11};
	static const uint8_t mgmt[] = {0x10, 0x0c, 0x05, 0x01, 10, 0, 0, 11, 0x02, 0, 0, 0, 1, 0x00};
	const char *ports[] = {"Ethernet0", "Ethernet4"};
	hw_topo_init(t);
	for (int k = 0; k < 2; k++) {
		uint8_t pdu[200];
		size_t n = 0;
		memcpy(pdu, leaf_pdu_head, sizeof(leaf_pdu_head));
		n = sizeof(leaf_pdu_head);
		pdu[n++] = 0x04;
		pdu[n++] = (uint8_t)(1 + strlen(ports[k]));
		pdu[n++] = 5;
		memcpy(pdu + n, ports[k], strlen(ports[k]));
		n += strlen(ports[k]);
		memcpy(pdu + n, (uint8_t[]){0x06, 0x02, 0, 120, 0x0a, 0x05, 'l', 'e', 'a', 'f', '1'}, 11);
		n += 11;
		memcpy(pdu + n, mgmt, sizeof(mgmt));
		n += sizeof(mgmt);
		pdu[n++] = 0;
		pdu[n++] = 0;
		struct hw_lldp_info i;
		assert_int_equal(hw_lldp_parse_pdu(pdu, n, &i), HW_LLDP_OK);
		assert_int_not_equal(hw_topo_advertise(t, &i, 1), HW_TOPO_NONE);
	}
	uint8_t f[400];
	struct hw_lldp_info i;
	size_t n = test_lldp_frame(&(struct test_end){0x21, "swp1", "spine1", 120, 0, -1, 0}, f);
	assert_int_equal(hw_lldp_parse_frame(f, n, &i), HW_LLDP_OK);
	hw_topo_advertise(t, &i, 1);
}

static void default_node_id(void **state)
{
	(void)state;
	struct hw_topo t;
	fabric(&t);
	hw_topo_map_apply(&t, NULL);
	uint32_t leaf = hw_topo_find_node_by_name(&t, "leaf1");
	assert_int_equal(t.nodes[leaf].node_id, (10u << 24) | 11u);
	uint32_t n, p;
	/* without a map, port numbers have no names */
	assert_int_equal(hw_topo_place(&t, NULL, 0x0a00000b, 0, &n, &p), HW_PLACE_NO_PORT_MAP);
	assert_int_equal(n, leaf);
	assert_int_equal(hw_topo_place(&t, NULL, 0x0a00000c, 0, &n, &p), HW_PLACE_NO_NODE);
	assert_int_equal(hw_topo_place(&t, NULL, 0, 0, &n, &p), HW_PLACE_NO_NODE); /* 0 = unknown, never placed */
	hw_topo_free(&t);
}

/* The fabric() topology in t, and map_text written to a file and loaded into m (it must load). */
static void fabric_with_map(struct hw_topo *t, struct hw_topo_map *m, const char *map_text)
{
	struct hw_topo_error err = {0};
	fabric(t);
	char *path = write_tmp(map_text);
	assert_int_equal(hw_topo_map_load(m, path, &err), HW_TOPO_OK);
	remove(path);
}

static void map_file(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_map m;
	struct hw_topo_error err = {0};
	char *path;
	fabric_with_map(&t, &m,
	                "{\"port_format\": \"Ethernet%u\",\n"
	                " \"nodes\": [\n"
	                "  {\"name\": \"leaf1\", \"ports\": {\"1\": \"Ethernet4\"}, \"tier\": \"leaf\"},\n"
	                "  {\"name\": \"spine1\", \"node_id\": \"0x2001\", \"port_format\": \"swp%u\", \"tier\": 2},\n"
	                "  {\"name\": \"gone\", \"node_id\": \"192.0.2.1\"}]}");
	assert_int_equal(m.n_nodes, 3);
	assert_int_equal(m.nodes[2].node_id, 0xc0000201);
	hw_topo_map_apply(&t, &m);
	uint32_t leaf = hw_topo_find_node_by_name(&t, "leaf1"), spine = hw_topo_find_node_by_name(&t, "spine1");
	assert_int_equal(t.nodes[spine].node_id, 0x2001);
	assert_int_equal(t.nodes[spine].tier, HW_TIER_SPINE);
	assert_true(t.nodes[spine].tier_fixed);
	uint32_t n, p;
	assert_int_equal(hw_topo_place(&t, &m, 0x0a00000b, 1, &n, &p), HW_PLACE_OK); /* explicit entry */
	assert_int_equal(n, leaf);
	assert_string_equal(t.ports[p].name, "Ethernet4");
	assert_int_equal(hw_topo_place(&t, &m, 0x0a00000b, 0, &n, &p), HW_PLACE_OK); /* global format */
	assert_string_equal(t.ports[p].name, "Ethernet0");
	assert_int_equal(hw_topo_place(&t, &m, 0x0a00000b, 8, &n, &p), HW_PLACE_NO_PORT);
	assert_int_equal(hw_topo_place(&t, &m, 0x2001, 1, &n, &p), HW_PLACE_OK); /* node's own format */
	assert_int_equal(n, spine);
	assert_int_equal(hw_topo_place(&t, &m, 0xc0000201, 1, &n, &p), HW_PLACE_NO_NODE);

	struct hw_place_tally tally = {0};
	hw_place_tally_add(&tally, &t, &m, 0x0a00000b, 1);
	hw_place_tally_add(&tally, &t, &m, 0x0a00000b, 8);
	hw_place_tally_add(&tally, &t, &m, 0x0a00000b, 8);
	hw_place_tally_add(&tally, &t, &m, 77, 3);
	assert_int_equal(tally.placed, 1);
	assert_int_equal(tally.unplaced, 3);
	assert_int_equal(tally.n_entries, 2);
	assert_int_equal(tally.entries[0].count, 2);
	assert_int_equal(tally.entries[0].why, HW_PLACE_NO_PORT);
	assert_int_equal(tally.entries[1].why, HW_PLACE_NO_NODE);
	assert_string_equal(hw_place_name(HW_PLACE_NO_NODE), "unknown_node");

	/* per-hop records (docs/records.md): ingress and egress ports of each hop */
	path = write_tmp("{\"node_id\": 167772171, \"ingress_port\": 0, \"egress_port\": 1}\n\n"
	                 "{\"node_id\": 5, \"ingress_port\": 2}\n");
	assert_int_equal(hw_place_records(&tally, &t, &m, path, &err), HW_TOPO_OK);
	remove(path);
	assert_int_equal(tally.placed, 3);
	assert_int_equal(tally.unplaced, 4);
	path = write_tmp("{\"ingress_port\": 2}\n");
	assert_int_equal(hw_place_records(&tally, &t, &m, path, &err), HW_TOPO_E_FORMAT);
	assert_non_null(strstr(err.message, ":1:"));
	remove(path);
	hw_place_tally_free(&tally);
	hw_topo_map_free(&m);
	hw_topo_free(&t);
}

/* Units (docs/topology.md): the top level says BMv2 (1000 ns per time unit, 1500 B per packet); node 1 says
 * cells of 176 B in nanoseconds; node 2 has none of its own (the top level's); leaf1 (node id through the
 * topology: 10.0.0.11) says microseconds only (occupancy: the top level's packets); an id in no entry gets
 * the top level's; without a map, 1 ns and 1 byte. */
static void map_units(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_map m;
	struct hw_topo_error err = {0};
	char *path;
	fabric_with_map(&t, &m,
	                "{\"target\": \"bmv2\", \"nodes\": [\n"
	                "  {\"name\": \"a\", \"node_id\": 1, \"time_unit\": \"ns\", \"occupancy_unit\": \"cells\","
	                "   \"unit_bytes\": 176},\n"
	                "  {\"name\": \"b\", \"node_id\": 2},\n"
	                "  {\"name\": \"leaf1\", \"time_unit\": \"us\"}]}");
	hw_topo_map_apply(&t, &m);
	struct hw_topo_map_units u = hw_topo_map_units_of(&t, &m, 1);
	assert_int_equal(u.time_ns, 1);
	assert_int_equal(u.occ_bytes, 176);
	u = hw_topo_map_units_of(&t, &m, 2);
	assert_int_equal(u.time_ns, 1000);
	assert_int_equal(u.occ_bytes, 1500);
	u = hw_topo_map_units_of(&t, &m, 0x0a00000b); /* leaf1 */
	assert_int_equal(u.time_ns, 1000);
	assert_int_equal(u.occ_bytes, 1500);
	u = hw_topo_map_units_of(&t, &m, 77);
	assert_int_equal(u.time_ns, 1000);
	u = hw_topo_map_units_of(&t, NULL, 1);
	assert_int_equal(u.time_ns, 1);
	assert_int_equal(u.occ_bytes, 1);

	/* a drop's hop with no egress port (4294967295, docs/records.md): its ingress port (node 5: no such
	 * node) is tallied unplaced, the egress port not at all: placed 0, unplaced 1 */
	struct hw_place_tally tally = {0};
	path = write_tmp("{\"node_id\": 5, \"ingress_port\": 2, \"egress_port\": 4294967295}\n");
	assert_int_equal(hw_place_records(&tally, &t, &m, path, &err), HW_TOPO_OK);
	remove(path);
	assert_int_equal(tally.placed, 0);
	assert_int_equal(tally.unplaced, 1);
	hw_place_tally_free(&tally);
	hw_topo_map_free(&m);
	hw_topo_free(&t);
}

/* Fabric (docs/topology.md): the top level says 25G hosts, Xoff 200 KB, Xon 150 KB; node 1 says its own Xoff
 * 600 KB and Xon 500 KB and 800G switch links; leaf1 (found through the topology by its id 10.0.0.11) says a 2 MB
 * lossy buffer only.  Field by field: node 1 = {25, 800, 600e3, 500e3, 0}; leaf1 = {25, 0, 200e3, 150e3, 2e6};
 * an id in no entry = the top level {25, 0, 200e3, 150e3, 0}; without a map, all 0 (not given). */
static void map_fabric(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_map m;
	fabric_with_map(&t, &m,
	                "{\"fabric\": {\"host_gbps\": 25, \"xoff_bytes\": 200000, \"xon_bytes\": 150000},\n"
	                " \"nodes\": [\n"
	                "  {\"name\": \"a\", \"node_id\": 1,"
	                "   \"fabric\": {\"xoff_bytes\": 600e3, \"xon_bytes\": 500e3, \"fabric_gbps\": 800}},\n"
	                "  {\"name\": \"leaf1\", \"fabric\": {\"lossy_buffer_bytes\": 2000000}}]}");
	hw_topo_map_apply(&t, &m);
	struct hw_topo_map_fabric f = hw_topo_map_fabric_of(&t, &m, 1);
	assert_float_equal(f.host_gbps, 25, 0);
	assert_float_equal(f.fabric_gbps, 800, 0);
	assert_float_equal(f.xoff_bytes, 600e3, 0);
	assert_float_equal(f.xon_bytes, 500e3, 0);
	assert_float_equal(f.lossy_buffer_bytes, 0, 0);
	f = hw_topo_map_fabric_of(&t, &m, 0x0a00000b); /* leaf1 */
	assert_float_equal(f.host_gbps, 25, 0);
	assert_float_equal(f.fabric_gbps, 0, 0);
	assert_float_equal(f.xoff_bytes, 200e3, 0);
	assert_float_equal(f.xon_bytes, 150e3, 0);
	assert_float_equal(f.lossy_buffer_bytes, 2e6, 0);
	f = hw_topo_map_fabric_of(&t, &m, 77);
	assert_float_equal(f.xoff_bytes, 200e3, 0);
	assert_float_equal(f.lossy_buffer_bytes, 0, 0);
	f = hw_topo_map_fabric_of(&t, NULL, 1);
	assert_float_equal(f.host_gbps, 0, 0);
	assert_float_equal(f.xoff_bytes, 0, 0);
	hw_topo_map_free(&m);
	hw_topo_free(&t);
}

static void bad_maps(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "{\"nodes\": [{\"node_id\": 1}]}",                                /* no name */
	    "{\"nodes\": [{\"name\": \"a\", \"node_id\": \"10.0.0\"}]}",      /* bad id */
	    "{\"nodes\": [{\"name\": \"a\", \"port_format\": \"%s\"}]}",      /* not %u */
	    "{\"port_format\": \"e%u%u\"}",                                   /* two conversions */
	    "{\"nodes\": [{\"name\": \"a\", \"ports\": {\"x\": \"eth1\"}}]}", /* port not a number */
	    "{\"nodes\": [{\"name\": \"a\", \"tier\": \"core\"}]}",           /* unknown tier */
	    "{\"nodes\": {}}",
	    "[1, 2",
	    "{\"time_unit\": \"ms\"}",                                      /* not ns or us */
	    "{\"nodes\": [{\"name\": \"a\", \"occupancy_unit\": \"kb\"}]}", /* unknown unit */
	    "{\"unit_bytes\": 80}",                                         /* without cells or packets */
	    "{\"fabric\": 400}",                                            /* not an object */
	    "{\"fabric\": {\"xoff\": 400000}}",                             /* unknown key */
	    "{\"fabric\": {\"host_gbps\": 0}}",                             /* not above 0 */
	    "{\"fabric\": {\"xoff_bytes\": \"400k\"}}",                     /* not a number */
	    "{\"nodes\": [{\"name\": \"a\", \"fabric\": {\"xoff_bytes\": 1e3, \"xon_bytes\": 2e3}}]}", /* Xon > Xoff */
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct hw_topo_map m;
		struct hw_topo_error err = {0};
		char *path = write_tmp(bad[k]);
		enum hw_topo_result r = hw_topo_map_load(&m, path, &err);
		if (r != HW_TOPO_E_FORMAT && r != HW_TOPO_E_JSON)
			fail_msg("map %zu accepted: %s", k, bad[k]);
		assert_non_null(strstr(err.message, path));
		remove(path);
	}
	struct hw_topo_map m;
	assert_int_equal(hw_topo_map_load(&m, "/nonexistent/map.json", NULL), HW_TOPO_E_IO);
}

/* The map alone as the topology: one node per entry (s1 with node id 7, tier spine; h1 without one), the
 * explicit port 1 = swp1 as a port from the start; port 5 gets its name from the top-level format
 * (Ethernet5) and is a port only once hw_topo_map_grow() adds it; an unknown node id (8) or a node with no
 * name for the port gets none. */
static void map_alone(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_map m;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	const char *p =
	    write_tmp("{\"port_format\": \"Ethernet%u\", \"nodes\": ["
	              "{\"name\": \"s1\", \"node_id\": 7, \"tier\": \"spine\", \"ports\": {\"1\": \"swp1\"}},"
	              "{\"name\": \"h1\", \"tier\": \"host\"}]}");
	assert_int_equal(hw_topo_map_load(&m, p, &err), HW_TOPO_OK);
	unlink(p);
	assert_int_equal(hw_topo_from_map(&t, &m, &err), HW_TOPO_OK);
	assert_int_equal(t.n_nodes, 2);
	assert_int_equal(t.n_ports, 1);
	assert_int_equal(t.n_links, 0);
	uint32_t s1 = hw_topo_find_node_by_name(&t, "s1"), h1 = hw_topo_find_node_by_name(&t, "h1"), n, pt;
	assert_int_not_equal(s1, HW_TOPO_NONE);
	assert_int_not_equal(h1, HW_TOPO_NONE);
	assert_int_equal(t.nodes[s1].node_id, 7);
	assert_int_equal(t.nodes[h1].node_id, 0);
	assert_int_equal(t.nodes[s1].tier, HW_TIER_SPINE);
	assert_int_equal(t.nodes[h1].tier, HW_TIER_HOST);
	assert_int_equal(hw_topo_place(&t, &m, 7, 1, &n, &pt), HW_PLACE_OK);
	assert_string_equal(t.ports[pt].name, "swp1");
	assert_int_equal(hw_topo_place(&t, &m, 7, 5, &n, &pt), HW_PLACE_NO_PORT);
	uint32_t added = hw_topo_map_grow(&t, &m, 7, 5);
	assert_int_not_equal(added, HW_TOPO_NONE);
	assert_int_equal(hw_topo_map_grow(&t, &m, 7, 5), added); /* once */
	assert_int_equal(t.n_ports, 2);
	assert_int_equal(hw_topo_place(&t, &m, 7, 5, &n, &pt), HW_PLACE_OK);
	assert_int_equal(pt, added);
	assert_string_equal(t.ports[pt].name, "Ethernet5");
	assert_int_equal(hw_topo_map_grow(&t, &m, 8, 1), HW_TOPO_NONE);
	assert_int_equal(t.n_ports, 2);
	hw_topo_map_free(&m);
	hw_topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(default_node_id), cmocka_unit_test(map_file),  cmocka_unit_test(bad_maps),
	    cmocka_unit_test(map_units),       cmocka_unit_test(map_alone), cmocka_unit_test(map_fabric),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
