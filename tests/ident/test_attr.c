/* lib/outputs/an_attr.c on hand-made flows: an event's sender and receiver jobs (sorted, once each, QP ranges
 * picking the receiver's job), its unattributed flows, the counts, and the jobs in the event JSON and annotations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "alert_text.h"
#include "an_attr.h"

static void v4(uint8_t ip[16], uint8_t d)
{
	memset(ip, 0, 16);
	ip[10] = ip[11] = 0xff;
	ip[12] = 10, ip[15] = d; /* 10.0.0.d */
}

static struct hw_record flow(uint64_t hash, uint8_t src, uint8_t dst, uint32_t qp)
{
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.valid = HW_V_FLOW | (qp != UINT32_MAX ? HW_V_ROCE : 0);
	r.flow_hash = hash;
	v4(r.src_ip, src);
	v4(r.dst_ip, dst);
	r.roce_dest_qp = qp == UINT32_MAX ? 0 : qp;
	return r;
}

static const char *annotation(const struct hw_alert_kv *a, const char *k)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!strcmp(a->kv[i].k, k))
			return a->kv[i].v;
	return NULL;
}

static void event_jobs(void **state)
{
	(void)state;
	char path[] = "/tmp/test_attr_XXXXXX", err[512];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	/* 10.0.0.3 is two jobs' (SR-IOV): QPs 100-199 job c, 200-299 job d; 10.0.0.4 a pod without a job */
	const char *map = "ip,qp,host,pod,job,namespace\n"
	                  "10.0.0.1,,h1,p1,a,ns\n"
	                  "10.0.0.2,,h2,p2,b,ns\n"
	                  "10.0.0.3,100-199,h3,p3,c,ns\n"
	                  "10.0.0.3,200-299,h3,p4,d,ns\n"
	                  "10.0.0.4,,h4,p5,,ns\n";
	assert_int_equal(write(fd, map, strlen(map)), (ssize_t)strlen(map));
	close(fd);
	struct hw_ident *id = hw_ident_create(NULL);
	assert_int_equal(hw_ident_add(id, HW_IDENT_MAP, path, err, sizeof(err)), 0);
	unlink(path);
	struct an_output *o = an_out_attr(id, "test", err, sizeof(err));
	assert_non_null(o);
	struct hw_record r[] = {
	    flow(1, 1, 3, 150),        /* a -> c */
	    flow(2, 2, 3, 250),        /* b -> d */
	    flow(3, 4, 3, 150),        /* (no job) -> c */
	    flow(4, 2, 1, UINT32_MAX), /* b -> a, not RoCE */
	    flow(5, 9, 1, UINT32_MAX), /* 10.0.0.9 unknown -> a */
	    flow(1, 1, 3, 150),        /* flow 1 again: learned once */
	};
	an_attr_learn(o, r, sizeof(r) / sizeof(r[0]));
	/* learned: flows 1..5 = 5; sender without a job: flows 3 (a pod without one) and 5 (unknown) = 2;
	 * receivers all have one = 0 */
	struct an_attr_stats st;
	an_attr_stats(o, &st);
	assert_int_equal(st.flows, 5);
	assert_int_equal(st.senders_unknown, 2);
	assert_int_equal(st.receivers_unknown, 0);

	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	snprintf(e.alertname, sizeof(e.alertname), "Incast");
	e.kind = HW_AN_INCAST;
	e.severity = "warning";
	e.port = UINT32_MAX, e.queue = -1, e.hw_id = -1;
	uint64_t flows[] = {4, 1, 2, 3, 99}; /* 99: never seen */
	e.n_flows = 5;
	memcpy(e.flows, flows, sizeof(flows));
	an_attr_event(o, &e);
	/* senders: b (4), a (1), b (2), none (3), unknown (99) -> "a,b"; receivers: a (4), c (1), d (2), c (3) ->
	 * "a,c,d"; unattributed: flow 3 (sender without a job) and 99 (not learned) = 2 */
	assert_int_equal(e.attributed, 1);
	assert_string_equal(e.sender_jobs, "a,b");
	assert_string_equal(e.receiver_jobs, "a,c,d");
	assert_int_equal(e.unattributed_flows, 2);

	char buf[4096];
	hw_an_event_json(&e, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"jobs\":{\"senders\":[\"a\",\"b\"],\"receivers\":[\"a\",\"c\",\"d\"],"
	                            "\"unattributed_flows\":2}"));
	struct hw_alert_kv a;
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_string_equal(annotation(&a, "sender_jobs"), "a,b");
	assert_string_equal(annotation(&a, "receiver_jobs"), "a,c,d");

	/* an event without flows: attributed, nothing named, and no annotations */
	memset(&e, 0, sizeof(e));
	e.severity = "warning";
	e.port = UINT32_MAX, e.queue = -1, e.hw_id = -1;
	an_attr_event(o, &e);
	hw_an_event_json(&e, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"jobs\":{\"senders\":[],\"receivers\":[],\"unattributed_flows\":0}"));
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_null(annotation(&a, "sender_jobs"));
	o->ops->close(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(event_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
