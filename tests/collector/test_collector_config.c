/* The collector's JSON configuration: every key read into the right field, and every bad key or value
 * refused with a message that names the file, the key and what was expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collector_config.h"

static char path[64];

static int load(struct hw_collector_config *c, const char *json, char *err, size_t errlen)
{
	snprintf(path, sizeof(path), "/tmp/hwcfg-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);
	hw_collector_config_free(c);
	hw_collector_config_default(c);
	int rc = hw_collector_config_load(c, path, err, errlen);
	unlink(path);
	return rc;
}

static void every_key(void **state)
{
	(void)state;
	struct hw_collector_config c = {0};
	char err[512] = "";
	int rc = load(
	    &c,
	    "{\"report_ports\": [32766, 9555], \"int_ports\": [5000], \"int_dscp\": 32, \"int_dscp_mask\": 32,"
	    " \"max_hops\": 9, \"bare_int\": false, \"vxlan_gpe_port\": 0, \"geneve_port\": 6082,"
	    " \"roce_port\": 4792, \"latency_unit_ns\": 2.5, \"occupancy_unit_bytes\": 80, \"queues\": 1000,"
	    " \"senders\": 100, \"flows\": 5000, \"ring_batches\": 8, \"workers\": 3, \"idle_exit_seconds\": 1.5,"
	    " \"sinks\": {\"json\": \"out.jsonl\", \"records_dir\": \"rec\", \"rotate_mb\": 16, \"rotate_seconds\": 60,"
	    " \"stream\": \"unix:/tmp/s\", \"metrics\": \"127.0.0.1:9464\"}}",
	    err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_int_equal(c.parser.n_report_ports, 2);
	assert_int_equal(c.parser.report_ports[1], 9555);
	assert_int_equal(c.parser.n_int_ports, 1);
	assert_int_equal(c.parser.int_ports[0], 5000);
	assert_int_equal(c.parser.int_dscp, 32);
	assert_int_equal(c.parser.int_dscp_mask, 32);
	assert_int_equal(c.parser.max_hops, 9);
	assert_int_equal(c.parser.bare_int, 0);
	assert_int_equal(c.parser.vxlan_gpe_port, 0);
	assert_int_equal(c.parser.geneve_port, 6082);
	assert_int_equal(c.parser.roce_port, 4792);
	assert_true(c.latency_unit_ns == 2.5);
	assert_true(c.occupancy_unit_bytes == 80);
	assert_int_equal(c.sizes.queues, 1000);
	assert_int_equal(c.sizes.senders, 100);
	assert_int_equal(c.sizes.flows, 5000);
	assert_int_equal(c.sizes.ring_batches, 8);
	assert_int_equal(c.workers, 3);
	assert_true(c.idle_exit_s == 1.5);
	assert_string_equal(c.json_out, "out.jsonl");
	assert_string_equal(c.records_dir, "rec");
	assert_int_equal(c.rotate_bytes, 16ull << 20);
	assert_int_equal(c.rotate_seconds, 60);
	assert_string_equal(c.stream, "unix:/tmp/s");
	assert_string_equal(c.metrics, "127.0.0.1:9464");
	hw_collector_config_free(&c);
}

static void profile_then_explicit_dscp(void **state)
{
	(void)state;
	struct hw_collector_config c = {0};
	char err[512];
	assert_int_equal(load(&c, "{\"profile\": \"geant\"}", err, sizeof(err)), 0);
	assert_int_equal(c.parser.profile, HW_PROFILE_GEANT);
	assert_int_equal(c.parser.int_dscp, 0x20); /* the profile's marking */
	assert_int_equal(load(&c, "{\"int_dscp\": 8, \"profile\": \"geant\"}", err, sizeof(err)), 0);
	assert_int_equal(c.parser.int_dscp, 8); /* an explicit value wins, whatever the key order */
}

static void refuse(const char *json, const char *key, const char *want)
{
	struct hw_collector_config c = {0};
	char err[512] = "";
	assert_int_equal(load(&c, json, err, sizeof(err)), -1);
	hw_collector_config_free(&c);
	if (!strstr(err, path) || !strstr(err, key) || !strstr(err, want))
		fail_msg("for %s: message '%s' should name the file, '%s' and '%s'", json, err, key, want);
}

static void bad_keys_and_values(void **state)
{
	(void)state;
	refuse("{\"report_port\": [1]}", "report_port", "a known key");
	refuse("{\"report_ports\": [0]}", "report_ports", "from 1 to 65535");
	refuse("{\"report_ports\": []}", "report_ports", "at least one port");
	refuse("{\"report_ports\": [1,2,3,4,5,6,7,8,9]}", "report_ports", "at most 8");
	refuse("{\"int_dscp\": 64}", "int_dscp", "from 0 to 63");
	refuse("{\"profile\": \"tofino\"}", "profile", "\"standard\" or \"geant\"");
	refuse("{\"bare_int\": 1}", "bare_int", "true or false");
	refuse("{\"latency_unit_ns\": 0}", "latency_unit_ns", "a positive number");
	refuse("{\"flows\": -5}", "flows", "an integer");
	refuse("{\"sinks\": {\"jsn\": \"x\"}}", "jsn", "one of json");
	refuse("{\"sinks\": {\"json\": 3}}", "json", "a string or null");
	refuse("[1, 2]", "", "a JSON object");
	refuse("{\"queues\": 10,}", "", "line 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_key),
	    cmocka_unit_test(profile_then_explicit_dscp),
	    cmocka_unit_test(bad_keys_and_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
