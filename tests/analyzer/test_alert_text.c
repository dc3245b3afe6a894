/* Unit test of the alert text for people: bytes and durations with units and readable precision, UTC
 * times, numbers by name, the dotted node id, the labels and the graph URL of an event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "alert_text.h"

static void test_bytes(void **state)
{
	(void)state;
	char b[32];
	hw_fmt_bytes(950, b, sizeof(b)); /* under 1000: bytes as they are */
	assert_string_equal(b, "950 B");
	hw_fmt_bytes(1200000, b, sizeof(b)); /* 1 200 000 / 10^6 = 1.2: two decimals, trailing 0 dropped */
	assert_string_equal(b, "1.2 MB");
	hw_fmt_bytes(25000, b, sizeof(b)); /* 25 000 / 10^3 = 25: one decimal, ".0" dropped */
	assert_string_equal(b, "25 kB");
	hw_fmt_bytes(19100, b, sizeof(b)); /* 19.1 kB */
	assert_string_equal(b, "19.1 kB");
	hw_fmt_bytes(999999, b, sizeof(b)); /* rounds to 1000 kB at 3 digits: shown as 1 MB */
	assert_string_equal(b, "1 MB");
}

static void test_durations(void **state)
{
	(void)state;
	char b[32];
	hw_fmt_duration(870, b, sizeof(b));
	assert_string_equal(b, "870 ns");
	hw_fmt_duration(43000, b, sizeof(b)); /* 43 000 ns = 43 µs */
	assert_string_equal(b, "43 µs");
	hw_fmt_duration(1450000, b, sizeof(b)); /* 1.45 ms */
	assert_string_equal(b, "1.45 ms");
	hw_fmt_duration(12e9, b, sizeof(b)); /* 12 s */
	assert_string_equal(b, "12 s");
}

static void test_utc_and_node(void **state)
{
	(void)state;
	char b[48];
	/* 2026-01-01T00:00:00Z is 1767225600 s; + 1.234567 s: milliseconds 234 */
	hw_fmt_utc(1767225601234567000ull, b, sizeof(b));
	assert_string_equal(b, "2026-01-01 00:00:01.234 UTC");
	hw_fmt_node_id(184484097, b, sizeof(b)); /* 184484097 = 10*2^24 + 255*2^16 + 1*2^8 + 1 */
	assert_string_equal(b, "10.255.1.1");
}

static void test_numbers(void **state)
{
	(void)state;
	char b[32];
	hw_fmt_number("HighQueue", "occupancy", 752500, b, sizeof(b)); /* bytes: 752.5 kB at 3 digits: 752 */
	assert_string_equal(b, "752 kB");
	hw_fmt_number("QueueBuildup", "eta_ms", 0.0364894, b, sizeof(b)); /* 0.0364894 ms = 36.4894 µs */
	assert_string_equal(b, "36.5 µs");
	hw_fmt_number("QueueBuildup", "slope_per_ms", 1.06661e7, b, sizeof(b)); /* 10.6661 MB per ms */
	assert_string_equal(b, "10.7 MB/ms");
	hw_fmt_number("HighHopLatency", "threshold", 1e6, b, sizeof(b)); /* latency in ns: 1 ms */
	assert_string_equal(b, "1 ms");
	hw_fmt_number("PacketDrops", "ratio", 0.25, b, sizeof(b)); /* a share: 25 % */
	assert_string_equal(b, "25 %");
	hw_fmt_number("PacketDrops", "threshold", 0.001, b, sizeof(b)); /* a ratio threshold: 0.1 % */
	assert_string_equal(b, "0.1 %");
	hw_fmt_number("Incast", "sources", 16, b, sizeof(b)); /* a count: an integer */
	assert_string_equal(b, "16");
	/* with the words that name them: before the value, or around it where the words say */
	char n[96];
	hw_fmt_named("Incast", "min_sources", 4, n, sizeof(n));
	assert_string_equal(n, "threshold 4 sources");
	hw_fmt_named("QueueBuildup", "eta_ms", 0.0364894, n, sizeof(n)); /* 36.4894 µs, as above */
	assert_string_equal(n, "reaches the threshold in 36.5 µs");
	hw_fmt_named("CongestionTree", "aftermath_bursts", 3, n, sizeof(n));
	assert_string_equal(n, "3 bursts as it drained");
	hw_fmt_named("CongestionTree", "aftermath_bursts", 1, n, sizeof(n)); /* one: no plural */
	assert_string_equal(n, "1 burst as it drained");
	hw_fmt_named("CongestionTree", "aftermath_peak", 343796, n, sizeof(n)); /* bytes: 343.796 kB, 344 kB */
	assert_string_equal(n, "peaking at 344 kB");
	hw_fmt_named("HighHopLatency", "hop_latency", 43000, n, sizeof(n)); /* 43000 ns = 43 µs */
	assert_string_equal(n, "hop latency 43 µs");
	hw_fmt_named("TelemetryReportLoss", "ratio", 0.012, n, sizeof(n)); /* 1.2 % of the reports */
	assert_string_equal(n, "lost 1.2 %");
	hw_fmt_named("PathChange", "moved_flows", 21, n, sizeof(n)); /* a count before its words */
	assert_string_equal(n, "21 flows moved");
	hw_fmt_named("PathChange", "moved_flows", 1, n, sizeof(n));
	assert_string_equal(n, "1 flow moved");
	/* a PathChange's hop is the index from 0 of the first hop whose egress differs (docs/analyzer.md); index 0 is
	 * the path's first switch, which people call hop 1 */
	hw_fmt_named("PathChange", "hop", 0, n, sizeof(n));
	assert_string_equal(n, "paths part at hop 1");
	hw_fmt_named("PathChange", "hop", 2, n, sizeof(n)); /* the third switch */
	assert_string_equal(n, "paths part at hop 3");
	hw_fmt_named("Foo", "some_count", 7, n, sizeof(n)); /* no words: the name, spaces for underscores */
	assert_string_equal(n, "some count 7");
}

static void test_labels_and_url(void **state)
{
	(void)state;
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	snprintf(e.alertname, sizeof(e.alertname), "Incast");
	e.severity = "warning";
	e.node_id = 184484097;
	snprintf(e.node, sizeof(e.node), "leaf1");
	e.port = 1;
	e.queue = 3;
	e.hw_id = -1;
	static struct hw_alert_kv l;
	hw_alert_labels(&e, "2026-01-01T00:00:00.001Z", &l);
	/* alertname, severity, job, node (dotted id), node_name, node_id, port (no name: the number), queue,
	 * incident, and as an Incast (an incident's cause) instance, node name and port: 10 labels */
	assert_int_equal(l.n, 10);
	assert_string_equal(l.kv[3].k, "node");
	assert_string_equal(l.kv[3].v, "10.255.1.1");
	assert_string_equal(l.kv[4].v, "leaf1");
	assert_string_equal(l.kv[6].k, "port");
	assert_string_equal(l.kv[6].v, "1");
	assert_string_equal(l.kv[8].k, "incident");
	assert_string_equal(l.kv[9].k, "instance");
	assert_string_equal(l.kv[9].v, "leaf1:1");
	assert_int_equal(hw_alert_rank(&e), 0);
	/* a CongestionTree at the same place: no instance (9 labels), listed after the cause */
	snprintf(e.alertname, sizeof(e.alertname), "CongestionTree");
	hw_alert_labels(&e, "2026-01-01T00:00:00.001Z", &l);
	assert_int_equal(l.n, 9);
	assert_int_equal(hw_alert_rank(&e), 1);
	/* a LinkDown (no port, queue): its link is the instance */
	snprintf(e.alertname, sizeof(e.alertname), "LinkDown");
	e.port = UINT32_MAX;
	e.queue = -1;
	snprintf(e.link, sizeof(e.link), "spine1:Ethernet1--leaf1:Ethernet9");
	hw_alert_labels(&e, NULL, &l);
	/* alertname, severity, job, node, node_name, node_id, link, instance */
	assert_int_equal(l.n, 8);
	assert_string_equal(l.kv[7].k, "instance");
	assert_string_equal(l.kv[7].v, "spine1:Ethernet1--leaf1:Ethernet9");
	snprintf(e.alertname, sizeof(e.alertname), "PacketDrops");
	assert_int_equal(hw_alert_rank(&e), 2);
	char u[128];
	hw_alert_graph_url("http://h:9464//", "/var/svg/event-1-2-Incast.svg", u, sizeof(u));
	assert_string_equal(u, "http://h:9464/svg/event-1-2-Incast.svg"); /* trailing slashes dropped, file name */
	hw_alert_graph_url("", "/var/svg/x.svg", u, sizeof(u));           /* no base: no URL */
	assert_string_equal(u, "");
}

/* A PFC storm's CongestionTree as the detector raises it at leaf3 Ethernet4 queue 3 (the port facing the
 * host that stopped draining), two victims upstream. */
static struct hw_an_event storm(void)
{
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	e.kind = HW_AN_CONGESTION_TREE;
	snprintf(e.alertname, sizeof(e.alertname), "CongestionTree");
	e.severity = "critical";
	e.node_id = 184484099; /* 10*2^24 + 255*2^16 + 1*2^8 + 3 = 10.255.1.3 */
	snprintf(e.node, sizeof(e.node), "leaf3");
	e.port = 4;
	snprintf(e.port_name, sizeof(e.port_name), "Ethernet4");
	e.queue = 3;
	e.hw_id = -1;
	snprintf(e.link, sizeof(e.link), "leaf3:Ethernet4--host20:eth0");
	e.n_numbers = 2;
	e.numbers[0].name = "victims";
	e.numbers[0].value = 2;
	e.numbers[1].name = "root_occupancy";
	e.numbers[1].value = 1612000; /* 1.612 MB: 3 significant digits, 1.61 MB */
	snprintf(e.detail, sizeof(e.detail), "root leaf3:Ethernet4/3, victims spine2:Ethernet3/3 leaf4:Ethernet10/3");
	e.n_flows = 4;
	e.start_ns = 1767225607001000000ull; /* 2026-01-01T00:00:00Z + 7.001 s */
	return e;
}

static void test_storm_text(void **state)
{
	(void)state;
	struct hw_an_event e = storm();
	static struct hw_alert_kv a;
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_string_equal(a.kv[0].k, "summary");
	/* the culprit first (the root queue, its fill), then the victims: how many, the queue they share, each
	 * switch and port by name (leaf4 before spine2), then the UTC start */
	assert_string_equal(a.kv[0].v, "CongestionTree: culprit leaf3 (10.255.1.3) port Ethernet4 queue 3 (1.61 MB "
	                               "queued); victims (2, queue 3): leaf4 Ethernet10, spine2 Ethernet3; "
	                               "since 2026-01-01 00:00:07.001 UTC");
	assert_string_equal(a.kv[1].k, "description");
	assert_string_equal(a.kv[1].v,
	                    "CongestionTree (critical). Culprit: leaf3 (10.255.1.3) port Ethernet4 queue 3, "
	                    "the root queue whose backlog pauses the queues upstream of it (PFC), holding "
	                    "1.61 MB. Victims paused upstream (2, queue 3): leaf4 Ethernet10, spine2 "
	                    "Ethernet3. Link: leaf3:Ethernet4--host20:eth0. Values: victims 2, "
	                    "root occupancy 1.61 MB. Started 2026-01-01 00:00:07.001 UTC, still going. Flows "
	                    "affected: 4. What to do: the root queue does not drain: check what is behind it "
	                    "(host20: a NIC sending PFC pauses, a slow receiver, an incast) and the PFC watchdog. "
	                    "The victims recover when it drains.");
	/* resolved 3 ms later; three victims counted, the detail names an unplaced one (node id 167837953 =
	 * 10*2^24 + 1*2^16 + 1*2^8 + 1, port 3; a digit sorts before a letter) and one more: the third is "and 1
	 * more" */
	e.resolved = 1;
	e.end_ns = e.start_ns + 3000000;
	e.numbers[0].value = 3;
	snprintf(e.detail, sizeof(e.detail), "root leaf3:Ethernet4/3, victims 167837953:3/3 leaf4:Ethernet10/3");
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_string_equal(a.kv[0].v, "CongestionTree: culprit leaf3 (10.255.1.3) port Ethernet4 queue 3 (1.61 MB "
	                               "queued); victims (3, queue 3): 10.1.1.1 port 3, leaf4 Ethernet10, and 1 "
	                               "more; since 2026-01-01 00:00:07.001 UTC, lasted 3 ms");
}

/* A tree at a queue that was an incast's aftermath (analyzer.h follows_id): the summary says after which alert,
 * the description why (that alert's pauses held the traffic that arrives here), and what to do asks for that
 * alert first, then the root's own checks.  The followed queue "leaf1:Ethernet1/3" reads "leaf1 Ethernet1
 * queue 3". */
static void test_tree_follows_text(void **state)
{
	(void)state;
	struct hw_an_event e = storm();
	static struct hw_alert_kv a;
	e.follows_id = 99;
	e.follows_kind = HW_AN_INCAST;
	snprintf(e.follows, sizeof(e.follows), "leaf1:Ethernet1/3");
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_string_equal(a.kv[0].v,
	                    "CongestionTree: culprit leaf3 (10.255.1.3) port Ethernet4 queue 3 (1.61 MB "
	                    "queued), after the Incast at leaf1 Ethernet1 queue 3; victims (2, queue 3): leaf4 "
	                    "Ethernet10, spine2 Ethernet3; since 2026-01-01 00:00:07.001 UTC");
	assert_non_null(strstr(a.kv[1].v,
	                       "holding 1.61 MB. It follows the Incast at leaf1 Ethernet1 queue 3: traffic its "
	                       "PFC pauses held upstream arrives here together as they let go. Victims paused "
	                       "upstream (2, queue 3):"));
	assert_non_null(strstr(a.kv[1].v, "What to do: act on the Incast at leaf1 Ethernet1 queue 3 first; this queue "
	                                  "drains once the traffic it held has arrived. If it does not, check what is "
	                                  "behind it (host20: a NIC sending PFC pauses,"));
	/* its graph's legend says it too, under the time, with the id the Incast's own graph has in its title */
	char b[1200];
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_non_null(strstr(b, "since 2026-01-01 00:00:07.001 UTC\nafter the Incast at leaf1 Ethernet1 queue 3 "
	                          "(event 99)\n"));
	/* follows nothing (id 0): the text of test_storm_text */
	e.follows_id = 0;
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_null(strstr(a.kv[0].v, "after"));
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_null(strstr(b, "after"));
	assert_non_null(strstr(a.kv[1].v, "What to do: the root queue does not drain"));
}

/* Many victims for a chat line: each switch once, its ports together, switches and ports in version order
 * (spine2 before spine10, Ethernet9 before Ethernet10), the queue once when they share it, else per port. */
static void test_victims_grouped(void **state)
{
	(void)state;
	struct hw_an_event e = storm();
	static struct hw_alert_kv a;
	e.numbers[0].value = 5;
	snprintf(e.detail, sizeof(e.detail),
	         "root leaf3:Ethernet4/3, victims spine10:Ethernet1/3 leaf6:Ethernet10/3 spine2:Ethernet1/3 "
	         "leaf6:Ethernet9/3 spine10:Ethernet2/3");
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_non_null(strstr(a.kv[0].v, "; victims (5, queue 3): leaf6 (Ethernet9, Ethernet10), spine2 Ethernet1, "
	                                  "spine10 (Ethernet1, Ethernet2); since "));
	/* the graph's legend names them the same way, not as the raw detail, in lines of at most 60 characters broken
	 * between switches: "victims (5, queue 3): leaf6 (Ethernet9, Ethernet10)" is 51, and ", spine2 Ethernet1"
	 * would make it 69, so spine2 starts the next line, which "spine10 (Ethernet1, Ethernet2)" ends at 48 */
	char b[1200];
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_non_null(strstr(b, "\nvictims (5, queue 3): leaf6 (Ethernet9, Ethernet10),\nspine2 Ethernet1, spine10 "
	                          "(Ethernet1, Ethernet2)"));
	assert_null(strstr(b, "root leaf3"));
	/* names from LLDP may hold parentheses, unbalanced, or be longer than a line: the list still breaks only
	 * between items, and an item never splits.  "sw(1" opens a parenthesis it never closes, so its item runs to the
	 * end.  "(3, queue 3): b Ethernet3" (25) then "sw(1 (Ethernet1, Ethernet2)" (27) would make the line
	 * 8 + 25 + 2 + 27 = 62, so it starts the next one (b before sw(1: version order) */
	e.numbers[0].value = 3;
	snprintf(e.detail, sizeof(e.detail),
	         "root leaf3:Ethernet4/3, victims sw(1:Ethernet1/3 sw(1:Ethernet2/3 b:Ethernet3/3");
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_non_null(strstr(b, "\nvictims (3, queue 3): b Ethernet3,\nsw(1 (Ethernet1, Ethernet2)"));
	/* a 90-character switch name (a victim's node holds 95): its item alone on a line of 100 */
	char name[91];
	memset(name, 'x', 90);
	name[90] = 0;
	e.numbers[0].value = 2;
	snprintf(e.detail, sizeof(e.detail), "root leaf3:Ethernet4/3, victims %s:Ethernet1/3 b:Ethernet3/3", name);
	hw_alert_graph_facts(&e, b, sizeof(b));
	char want[200];
	snprintf(want, sizeof(want), "\nvictims (2, queue 3): b Ethernet3,\n%s Ethernet1", name);
	assert_non_null(strstr(b, want));
	/* two queues among them: each port says its own, the count no queue */
	e.numbers[0].value = 2;
	snprintf(e.detail, sizeof(e.detail), "root leaf3:Ethernet4/3, victims spine1:Ethernet1/3 spine1:Ethernet2/4");
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_non_null(strstr(a.kv[0].v, "; victims (2): spine1 (Ethernet1 queue 3, Ethernet2 queue 4); since "));
	/* a detail that names none: said so */
	e.numbers[0].value = 0;
	snprintf(e.detail, sizeof(e.detail), "root leaf3:Ethernet4/3");
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_non_null(strstr(a.kv[0].v, "; victims: none named; since "));
}

/* The storm() event as another kind of alert (its queue, 3, kept) at leaf port 1, Ethernet1 toward host. */
static struct hw_an_event storm_as(enum hw_an_kind kind, const char *alertname, const char *severity, uint32_t node_id,
                                   const char *leaf, const char *host)
{
	struct hw_an_event e = storm();
	e.kind = kind;
	snprintf(e.alertname, sizeof(e.alertname), "%s", alertname);
	e.severity = severity;
	e.node_id = node_id;
	snprintf(e.node, sizeof(e.node), "%s", leaf);
	e.port = 1;
	snprintf(e.port_name, sizeof(e.port_name), "Ethernet1");
	snprintf(e.link, sizeof(e.link), "%s:Ethernet1--%s:eth0", leaf, host);
	return e;
}

/* The bundled incast as its Incast is raised at leaf1 Ethernet1 queue 3 (the port facing host1, where 16
 * senders meet): the storm's place and numbers changed to an incast's, sources 16, occupancy 1.75 MB, one
 * victim upstream. */
static void test_incast_text(void **state)
{
	(void)state;
	struct hw_an_event e =
	    storm_as(HW_AN_INCAST, "Incast", "warning", 184484097 /* 10.255.1.1 */, "leaf1", "host1");
	e.numbers[0].name = "sources";
	e.numbers[0].value = 16;
	e.numbers[1].name = "occupancy";
	e.numbers[1].value = 1750000; /* 1.75 MB */
	snprintf(e.detail, sizeof(e.detail), "root leaf1:Ethernet1/3, victims spine3:Ethernet1/3");
	e.n_flows = 16;
	static struct hw_alert_kv a;
	hw_alert_annotations(&e, NULL, NULL, &a);
	/* the culprit, toward the host behind it (the link's far end), how many sources and how full, the victim
	 * as a place (the detail's "spine3:Ethernet1/3"), the UTC start */
	assert_string_equal(a.kv[0].v, "Incast: culprit leaf1 (10.255.1.1) port Ethernet1 queue 3 toward host1, "
	                               "sources 16 (1.75 MB queued); victims (1, queue 3): spine3 Ethernet1; since "
	                               "2026-01-01 00:00:07.001 UTC");
	/* the same in sentences, the raw detail not repeated, then what to do about it, naming the host */
	assert_string_equal(a.kv[1].v,
	                    "Incast (warning). Culprit: leaf1 (10.255.1.1) port Ethernet1 queue 3, where the traffic "
	                    "of 16 sources to host1 meets, more than the port can send, holding 1.75 MB. Victims "
	                    "paused upstream (1, queue 3): spine3 Ethernet1. Link: leaf1:Ethernet1--host1:eth0. "
	                    "Values: sources 16, occupancy 1.75 MB. Started 2026-01-01 00:00:07.001 UTC, still going. "
	                    "Flows affected: 16. What to do: find the senders (the flows, the graph) and stagger or "
	                    "rate-limit their traffic to host1; check ECN/DCQCN marking on this queue. The victims "
	                    "recover when it drains.");
	/* a LinkDown (a link, no port) says its link in the summary */
	memset(&e, 0, sizeof(e));
	snprintf(e.alertname, sizeof(e.alertname), "LinkDown");
	snprintf(e.node, sizeof(e.node), "spine1");
	e.port = UINT32_MAX;
	e.queue = -1;
	e.hw_id = -1;
	snprintf(e.link, sizeof(e.link), "spine1:Ethernet1--leaf1:Ethernet9");
	e.start_ns = 1767225600000000000ull; /* 2026-01-01T00:00:00Z */
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_string_equal(
	    a.kv[0].v, "LinkDown at spine1, link spine1:Ethernet1--leaf1:Ethernet9 since 2026-01-01 00:00:00.000 UTC");
}

/* The injected burst of `hopwatch-gen scenario microburst --seed 3` as its Microburst ends (the events file: leaf2
 * Ethernet1 queue 3 toward host9, peak 1436249 B, 345.029 µs, threshold 300000 B, 2 flows, from record time
 * 1767225600002019000 ns), held by PFC 12.5 µs after its rise: the bursts' digest sends this text. */
static void test_microburst_text(void **state)
{
	(void)state;
	/* 10*2^24 + 255*2^16 + 1*2^8 + 2 = 10.255.1.2 */
	struct hw_an_event e = storm_as(HW_AN_MICROBURST, "Microburst", "info", 184484098, "leaf2", "host9");
	e.detail[0] = 0;
	e.n_numbers = 4;
	e.numbers[0].name = "peak";
	e.numbers[0].value = 1436249; /* 1.436 MB: 3 significant digits, 1.44 MB */
	e.numbers[1].name = "duration_us";
	e.numbers[1].value = 345.029; /* 345.029 µs: 345 µs */
	e.numbers[2].name = "threshold";
	e.numbers[2].value = 300000; /* 300 kB */
	e.numbers[3].name = "rise_us";
	e.numbers[3].value = 12.5; /* a duration like duration_us: 12.5 µs, not the bare number */
	e.n_flows = 2;
	e.start_ns = 1767225600002019000ull; /* 2026-01-01T00:00:00Z + 2.019 ms: .002 at ms precision */
	e.end_ns = e.start_ns + 345029;
	e.resolved = 1; /* lasted 345029 ns: 345 µs */
	static struct hw_alert_kv a;
	hw_alert_annotations(&e, NULL, NULL, &a);
	/* its length (duration_us) said once, as how long it lasted, not again among the values */
	assert_string_equal(a.kv[0].v, "Microburst at leaf2 (10.255.1.2) port Ethernet1 queue 3: peak 1.44 MB, "
	                               "threshold 300 kB, reached HighQueue in 12.5 µs; since 2026-01-01 "
	                               "00:00:00.002 UTC, lasted 345 µs");
	/* what to do names the host behind the port (the link's far end) */
	assert_string_equal(
	    a.kv[1].v,
	    "Microburst (info) at leaf2 (10.255.1.2) port Ethernet1 queue 3. Link: "
	    "leaf2:Ethernet1--host9:eth0. Values: peak 1.44 MB, threshold 300 kB, "
	    "reached HighQueue in 12.5 µs. Started 2026-01-01 00:00:00.002 UTC, lasted 345 µs. Flows affected: 2. "
	    "What to do: one burst needs nothing. If they repeat on this queue, find the flows that "
	    "arrive together (the flows, the graph) toward host9 and stagger or pace them; check ECN "
	    "marking on this queue, so that senders slow down before PFC pauses or drops.");
	/* its firing alert (the sink holds the resolve) already ended: it lasted duration_us, not "still going" */
	e.resolved = 0;
	e.end_ns = 0;
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_non_null(strstr(a.kv[0].v, "since 2026-01-01 00:00:00.002 UTC, lasted 345 µs"));
	assert_non_null(strstr(a.kv[1].v, "Started 2026-01-01 00:00:00.002 UTC, lasted 345 µs. Flows"));
}

/* The bundled incast's PacketDrops as the analyzer raises it (its events file): leaf1 Ethernet1 queue 0 (the lossy
 * class, TCP) toward host1, 98 of 470 records dropped, drop reason 71 (switch.p4's TRAFFIC_MANAGER), one flow.
 * What to do depends on the reason. */
static void test_drops_text(void **state)
{
	(void)state;
	struct hw_an_event e =
	    storm_as(HW_AN_PACKET_DROPS, "PacketDrops", "critical", 184484097 /* 10.255.1.1 */, "leaf1", "host1");
	e.queue = 0;
	e.n_numbers = 5;
	e.numbers[0].name = "drops";
	e.numbers[0].value = 98;
	e.numbers[1].name = "seen";
	e.numbers[1].value = 470;
	e.numbers[2].name = "ratio";
	e.numbers[2].value = 98.0 / 470; /* 0.2085...: 20.9 % */
	e.numbers[3].name = "threshold";
	e.numbers[3].value = 0.001; /* 0.1 % */
	e.numbers[4].name = "drop_reason";
	e.numbers[4].value = 71;
	snprintf(e.detail, sizeof(e.detail), "drop reason 71 (traffic manager: queue or buffer full)");
	e.n_flows = 1;
	static struct hw_alert_kv a;
	hw_alert_annotations(&e, NULL, NULL, &a);
	/* the summary names the reason in words with its code */
	assert_string_equal(a.kv[0].v,
	                    "PacketDrops at leaf1 (10.255.1.1) port Ethernet1 queue 0: drops 98, records 470, "
	                    "dropped 20.9 %, threshold 0.1 %, drop reason 71 (traffic manager: queue or buffer "
	                    "full); since 2026-01-01 00:00:07.001 UTC");
	/* the place, the link, the values with the reason in words (the detail, the same reason, not again), the
	 * start, then what to do about a full queue, toward the host behind the port */
	assert_string_equal(
	    a.kv[1].v, "PacketDrops (critical) at leaf1 (10.255.1.1) port Ethernet1 queue 0. Link: "
	               "leaf1:Ethernet1--host1:eth0. Values: drops 98, records 470, dropped 20.9 %, threshold 0.1 %, "
	               "drop reason 71 (traffic manager: queue or buffer full). Started "
	               "2026-01-01 00:00:07.001 UTC, still going. Flows affected: 1. What to do: the queue "
	               "overflowed. If this traffic should be lossless (RoCE), check that its DSCP maps to a "
	               "PFC-enabled queue and the buffer headroom; if lossy, find what congests the queue toward "
	               "host1 (its HighQueue or Incast, the flows).");
	/* the graph's legend: the numbers three a line, the reason named there and not again below */
	char b[1200];
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_string_equal(b, "since 2026-01-01 00:00:07.001 UTC\n"
	                       "drops 98, records 470, dropped 20.9 %\n"
	                       "threshold 0.1 %, drop reason 71 (traffic manager: queue or buffer full)");
	/* an MTU drop (switch.p4 MTU_CHECK_FAIL, 70) asks for the MTU along the path */
	e.numbers[4].value = 70;
	hw_alert_annotations(&e, NULL, NULL, &a);
	const char *mtu = "Flows affected: 1. What to do: frames larger than the MTU: make the MTU the same along the "
	                  "path (both ends of each link and the hosts' RoCE MTU).";
	const char *v = a.kv[1].v;
	assert_true(strlen(v) > strlen(mtu));
	assert_string_equal(v + strlen(v) - strlen(mtu), mtu);
	/* a code neither switch.p4 nor fabric-tna defines: the bare code, the detail said, and the switch's own
	 * counters */
	e.numbers[4].value = 200;
	snprintf(e.detail, sizeof(e.detail), "drop reason 200");
	hw_alert_annotations(&e, NULL, NULL, &a);
	assert_non_null(strstr(a.kv[1].v, "leaf1:Ethernet1--host1:eth0. drop reason 200. Values: "));
	assert_non_null(strstr(a.kv[0].v, "threshold 0.1 %, drop reason 200; since"));
	const char *other = "What to do: check the switch's drop counters for this reason.";
	v = a.kv[1].v;
	assert_string_equal(v + strlen(v) - strlen(other), other);
}

/* An event graph's legend says what the alert says: the example (record time 1767225600001503000 ns,
 * occupancy 1.71871e+06) as a UTC time and bytes, the numbers three a line, then the detail. */
static void test_graph_facts(void **state)
{
	(void)state;
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	snprintf(e.alertname, sizeof(e.alertname), "HighQueue");
	e.severity = "warning";
	e.node_id = 184484097; /* 10.255.1.1 */
	snprintf(e.node, sizeof(e.node), "leaf1");
	e.port = 3;
	snprintf(e.port_name, sizeof(e.port_name), "Ethernet3");
	e.queue = 3;
	e.hw_id = -1;
	e.start_ns = 1767225600001503000ull; /* 2026-01-01T00:00:00Z + 1.503 ms: milliseconds 001 */
	e.n_numbers = 4;
	e.numbers[0].name = "occupancy";
	e.numbers[0].value = 1718710; /* 1.71871 MB: 3 significant digits, 1.72 MB */
	e.numbers[1].name = "threshold";
	e.numbers[1].value = 1000000; /* 1 MB */
	e.numbers[2].name = "peak";
	e.numbers[2].value = 1800000; /* 1.8 MB (1.80, trailing 0 dropped) */
	e.numbers[3].name = "duration_us";
	e.numbers[3].value = 250; /* 250 µs; the fourth number: a new line */
	snprintf(e.detail, sizeof(e.detail), "rising");
	char b[1200];
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_string_equal(b, "since 2026-01-01 00:00:00.001 UTC\n"
	                       "occupancy 1.72 MB, threshold 1 MB, peak 1.8 MB\n"
	                       "length 250 µs\n"
	                       "rising");
	hw_alert_place(&e, b, sizeof(b)); /* the graph's title names the place as the alert does */
	assert_string_equal(b, "leaf1 (10.255.1.1) port Ethernet3 queue 3");
	/* resolved 12 ms later, no numbers, no detail: the time line alone, with how long it lasted */
	e.resolved = 1;
	e.end_ns = e.start_ns + 12000000;
	e.n_numbers = 0;
	e.detail[0] = 0;
	hw_alert_graph_facts(&e, b, sizeof(b));
	assert_string_equal(b, "since 2026-01-01 00:00:00.001 UTC, lasted 12 ms");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bytes),           cmocka_unit_test(test_durations),
	    cmocka_unit_test(test_utc_and_node),    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_labels_and_url),  cmocka_unit_test(test_storm_text),
	    cmocka_unit_test(test_incast_text),     cmocka_unit_test(test_microburst_text),
	    cmocka_unit_test(test_drops_text),      cmocka_unit_test(test_graph_facts),
	    cmocka_unit_test(test_victims_grouped), cmocka_unit_test(test_tree_follows_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
