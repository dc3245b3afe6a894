/* lib/ident on hand-written inputs (tests/ident/data): kubectl pod lists, CSV and JSON maps, QP ranges, escaping
 * and bounds, and reloading a directory source (a change followed, a bad file keeping the last good mapping). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "hopwatch/ident.h"

static void ip(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	struct in_addr a;
	if (inet_pton(AF_INET, s, &a) == 1) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &a, 4);
	} else {
		assert_int_equal(inet_pton(AF_INET6, s, out), 1);
	}
}

static const struct hw_ident_entry *find(const struct hw_ident *id, const char *addr, uint32_t qp)
{
	uint8_t b[16];
	ip(addr, b);
	return hw_ident_lookup(id, b, qp);
}

static void pods_file(void **state)
{
	(void)state;
	char err[512];
	struct hw_ident *id = hw_ident_create(NULL);
	assert_non_null(id);
	assert_int_equal(hw_ident_add(id, HW_IDENT_PODS, IDENT_DATA "/pods.json", err, sizeof(err)), 0);
	/* job-name label */
	const struct hw_ident_entry *e = find(id, "10.1.0.5", UINT32_MAX);
	assert_non_null(e);
	assert_string_equal(e->pod, "trainer-a-0");
	assert_string_equal(e->job, "trainer-a");
	assert_string_equal(e->ns, "ml");
	assert_string_equal(e->host, "node1");
	/* the Kubeflow label, and the pod's second address (IPv6) */
	assert_string_equal(find(id, "10.1.0.6", UINT32_MAX)->job, "trainer-b");
	assert_string_equal(find(id, "fd00::6", 5)->pod, "trainer-b-worker-0");
	/* 10.1.0.7: old-0 Succeeded (skipped), new-0 Pending holds it now; its Volcano label "new job" has a
	 * space, written '_' */
	e = find(id, "10.1.0.7", UINT32_MAX);
	assert_string_equal(e->pod, "new-0");
	assert_string_equal(e->job, "new_job");
	/* host networking: the pod's address is its node's */
	assert_string_equal(find(id, "192.168.0.3", UINT32_MAX)->job, "hpc-run");
	/* a node's own address (hostIP of trainer-a-0 and web-0): the node, no pod, no job */
	e = find(id, "192.168.0.1", UINT32_MAX);
	assert_non_null(e);
	assert_string_equal(e->host, "node1");
	assert_string_equal(e->pod, "");
	assert_string_equal(e->job, "");
	/* a pod without any job label */
	e = find(id, "10.1.0.8", UINT32_MAX);
	assert_string_equal(e->pod, "web-0");
	assert_string_equal(e->job, "");
	assert_null(find(id, "10.9.9.9", UINT32_MAX));
	/* entries: 10.1.0.5, 10.1.0.6, fd00::6, 10.1.0.7, 192.168.0.3, 10.1.0.8, hosts 192.168.0.1, .2 = 8 */
	struct hw_ident_stats st;
	hw_ident_stats(id, &st);
	assert_int_equal(st.sources, 1);
	assert_int_equal(st.entries, 8);
	assert_int_equal(st.stale, 0);
	hw_ident_destroy(id);

	/* a configured job label: "team" alone; trainer-a-0 has team=vision, new-0 has none */
	id = hw_ident_create("team");
	assert_int_equal(hw_ident_add(id, HW_IDENT_PODS, IDENT_DATA "/pods.json", err, sizeof(err)), 0);
	assert_string_equal(find(id, "10.1.0.5", UINT32_MAX)->job, "vision");
	assert_string_equal(find(id, "10.1.0.7", UINT32_MAX)->job, "");
	hw_ident_destroy(id);
}

static void csv_map_qp_ranges(void **state)
{
	(void)state;
	char err[512];
	struct hw_ident *id = hw_ident_create(NULL);
	assert_int_equal(hw_ident_add(id, HW_IDENT_MAP, IDENT_DATA "/map.csv", err, sizeof(err)), 0);
	/* 10.2.0.1: every QP */
	assert_string_equal(find(id, "10.2.0.1", 77)->job, "llm-pretrain");
	assert_string_equal(find(id, "10.2.0.1", UINT32_MAX)->host, "gpu1");
	/* 10.2.0.2: QPs 0x100..0x1ff (256..511) llm-pretrain, 512..1023 eval */
	assert_string_equal(find(id, "10.2.0.2", 0x150)->job, "llm-pretrain");
	assert_string_equal(find(id, "10.2.0.2", 511)->job, "llm-pretrain");
	assert_string_equal(find(id, "10.2.0.2", 512)->job, "eval");
	assert_string_equal(find(id, "10.2.0.2", 512)->pod, "eval-7");
	assert_string_equal(find(id, "10.2.0.2", 512)->ns, "research");
	/* a QP no range holds, on an IP without an every-QP entry: not known */
	assert_null(find(id, "10.2.0.2", 2000));
	/* QP not known: the IP's first entry (lowest range) */
	assert_string_equal(find(id, "10.2.0.2", UINT32_MAX)->job, "llm-pretrain");
	hw_ident_destroy(id);
}

static void json_map_escaped_bounded(void **state)
{
	(void)state;
	char err[512];
	struct hw_ident *id = hw_ident_create(NULL);
	assert_int_equal(hw_ident_add(id, HW_IDENT_MAP, IDENT_DATA "/map.json", err, sizeof(err)), 0);
	/* a"b,c d: the quote, the comma and the space are each written '_' */
	assert_string_equal(find(id, "10.3.0.1", 7)->job, "a_b_c_d");
	assert_null(find(id, "10.3.0.1", 8)); /* qp 7 only */
	/* 104 x's cut to HW_IDENT_NAME_MAX - 1 = 63 */
	const char *j = find(id, "10.3.0.2", UINT32_MAX)->job;
	assert_int_equal(strlen(j), 63);
	assert_int_equal(j[62], 'x');
	hw_ident_destroy(id);
}

static void bad_inputs(void **state)
{
	(void)state;
	char err[512];
	struct hw_ident_entry *v = NULL;
	size_t n = 0, cap = 0;
	/* line 3 (the header is line 1, a comment line 2) has a bad address: the message names file and line */
	assert_int_equal(hw_ident_parse_map("ip,qp,host\n# c\n10.2.0.x,,h\n", "m.csv", &v, &n, &cap, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "m.csv:3"));
	assert_non_null(strstr(err, "10.2.0.x"));
	/* a range whose end is below its start */
	assert_int_equal(hw_ident_parse_map("10.2.0.1,9-3,h\n", "m.csv", &v, &n, &cap, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "9-3"));
	/* not a pod list */
	assert_int_equal(hw_ident_parse_pods("{\"kind\":\"Node\"}", "p.json", NULL, &v, &n, &cap, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "p.json"));
	assert_int_equal(hw_ident_parse_pods("{\"items\":[", "p.json", NULL, &v, &n, &cap, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "p.json:"));
	free(v);
	/* a missing source fails hw_ident_add and names it */
	struct hw_ident *id = hw_ident_create(NULL);
	assert_int_equal(hw_ident_add(id, HW_IDENT_PODS, "/nonexistent/pods.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/pods.json"));
	hw_ident_destroy(id);
}

static const char *pod_list(const char *job)
{
	static char buf[512];
	snprintf(buf, sizeof(buf),
	         "{\"items\":[{\"metadata\":{\"name\":\"p0\",\"namespace\":\"ns\",\"labels\":{\"job-name\":\"%s\"}},"
	         "\"spec\":{\"nodeName\":\"n0\"},\"status\":{\"phase\":\"Running\",\"podIP\":\"10.5.0.1\"}}]}",
	         job);
	return buf;
}

/* Write text to dir/name by a rename, so the directory source sees a new file (new inode) each time. */
static void put(const char *dir, const char *name, const char *text)
{
	char tmp[512], path[512];
	snprintf(tmp, sizeof(tmp), "%s/.tmp", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static void reload_directory(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_ident_XXXXXX", err[512];
	assert_non_null(mkdtemp(dir));
	put(dir, "a.json", pod_list("first"));
	struct hw_ident *id = hw_ident_create(NULL);
	assert_int_equal(hw_ident_add(id, HW_IDENT_PODS, dir, err, sizeof(err)), 0);
	assert_string_equal(find(id, "10.5.0.1", UINT32_MAX)->job, "first");
	/* nothing changed: nothing loaded, nothing failed */
	struct hw_ident_stats st;
	hw_ident_stats(id, &st);
	uint64_t loads = st.loads;
	assert_int_equal(hw_ident_reload(id, err, sizeof(err)), 0);
	hw_ident_stats(id, &st);
	assert_int_equal(st.loads, loads);
	/* the pod's job changes: followed */
	put(dir, "a.json", pod_list("second-job"));
	assert_int_equal(hw_ident_reload(id, err, sizeof(err)), 0);
	assert_string_equal(find(id, "10.5.0.1", UINT32_MAX)->job, "second-job");
	/* a second, malformed file: the source fails, the last good mapping stays, stale */
	put(dir, "b.json", "{\"items\": [ {");
	assert_int_equal(hw_ident_reload(id, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "b.json"));
	assert_string_equal(find(id, "10.5.0.1", UINT32_MAX)->job, "second-job");
	hw_ident_stats(id, &st);
	assert_int_equal(st.stale, 1);
	assert_int_equal(st.load_errors, 1);
	/* the same bad files are not tried again */
	assert_int_equal(hw_ident_reload(id, err, sizeof(err)), 0);
	hw_ident_stats(id, &st);
	assert_int_equal(st.load_errors, 1);
	assert_int_equal(st.stale, 1);
	/* b.json mended, holding another pod: both files read, no longer stale */
	put(dir, "b.json",
	    "{\"items\":[{\"metadata\":{\"name\":\"q0\",\"namespace\":\"ns\",\"labels\":{\"job-name\":\"other\"}},"
	    "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.5.0.2\"}}]}");
	assert_int_equal(hw_ident_reload(id, err, sizeof(err)), 0);
	hw_ident_stats(id, &st);
	assert_int_equal(st.stale, 0);
	assert_int_equal(st.entries, 2);
	assert_string_equal(find(id, "10.5.0.2", UINT32_MAX)->job, "other");
	/* a.json removed: its pod is gone */
	char p[600];
	snprintf(p, sizeof(p), "%s/a.json", dir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hw_ident_reload(id, err, sizeof(err)), 0);
	assert_null(find(id, "10.5.0.1", UINT32_MAX));
	hw_ident_destroy(id);
	snprintf(p, sizeof(p), "%s/b.json", dir);
	unlink(p);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pods_file),
	    cmocka_unit_test(csv_map_qp_ranges),
	    cmocka_unit_test(json_map_escaped_bounded),
	    cmocka_unit_test(bad_inputs),
	    cmocka_unit_test(reload_directory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
