/* Unit tests of the libpcap source: capture files written here (Ethernet and Linux SLL2) from hand-built
 * frames, including the MTU mismatch lldpd cannot produce (it never sends the 802.3 maximum frame size). */
#include <errno.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"
#include "lldp_frames.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

struct cap {
	pcap_t *dead;
	pcap_dumper_t *d;
	char path[64];
};

static void cap_open(struct cap *c, int linktype)
{
	snprintf(c->path, sizeof(c->path), "/tmp/hwt-topo-pcap-XXXXXX");
	int fd = mkstemp(c->path);
	assert_return_code(fd, errno);
	close(fd);
	c->dead = pcap_open_dead(linktype, 65535);
	c->d = pcap_dump_open(c->dead, c->path);
	assert_non_null(c->d);
}

/* One frame at `time`; for SLL2 the Ethernet header becomes an SLL2 header on interface ifindex. */
static void cap_frame(struct cap *c, struct test_end e, double time, uint32_t ifindex)
{
	uint8_t f[400], out[420];
	size_t n = test_lldp_frame(&e, f), len = n;
	const uint8_t *data = f;
	if (pcap_datalink(c->dead) == DLT_LINUX_SLL2) {
		uint8_t h[20] = {0x88,
		                 0xcc,
		                 0,
		                 0,
		                 (uint8_t)(ifindex >> 24),
		                 (uint8_t)(ifindex >> 16),
		                 (uint8_t)(ifindex >> 8),
		                 (uint8_t)ifindex,
		                 0,
		                 1,
		                 2,
		                 6};
		memcpy(h + 12, f + 6, 6);
		memcpy(out, h, 20);
		memcpy(out + 20, f + 14, n - 14);
		data = out;
		len = n - 14 + 20;
	}
	struct pcap_pkthdr ph = {.caplen = (bpf_u_int32)len, .len = (bpf_u_int32)len};
	ph.ts.tv_sec = (time_t)time;
	ph.ts.tv_usec = (suseconds_t)((time - (double)(time_t)time) * 1e6);
	pcap_dump((u_char *)c->d, &ph, data);
}

static void cap_close(struct cap *c)
{
	pcap_dump_close(c->d);
	pcap_close(c->dead);
}

static const struct hw_topo_event *find(const struct hw_topo *t, enum hw_topo_event_kind k)
{
	for (uint32_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind == k)
			return &t->events[i];
	return NULL;
}

static void mtu_mismatch_from_capture(void **state)
{
	(void)state;
	struct cap c;
	cap_open(&c, DLT_EN10MB);
	struct test_end a = {1, "Ethernet0", "leaf1", 120, 9216, -1, HW_LLDP_CAP_ROUTER};
	struct test_end b = {2, "Ethernet48", "spine1", 120, 1500, -1, HW_LLDP_CAP_ROUTER};
	for (int k = 0; k < 3; k++) {
		cap_frame(&c, a, 1000 + k, 0);
		cap_frame(&c, b, 1000.5 + k, 0);
	}
	uint8_t junk[40] = {0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 9, 0x88, 0xcc, 0x02, 0x07, 0x04, 1};
	struct pcap_pkthdr ph = {.caplen = 18, .len = 18}; /* chassis TLV cut short */
	ph.ts.tv_sec = 1003;
	pcap_dump((u_char *)c.d, &ph, junk);
	cap_close(&c);

	struct hw_topo t;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	assert_int_equal(hw_topo_load_pcap(&t, c.path, 0, 0, &err), HW_TOPO_OK);
	remove(c.path);
	assert_int_equal(t.frames_lldp, 6);
	assert_int_equal(t.frames_rejected[HW_LLDP_E_TLV_LENGTH], 1);
	assert_int_equal(t.n_links, 1);
	assert_int_equal(hw_topo_links_up(&t), 1);
	hw_topo_check(&t);
	const struct hw_topo_event *e = find(&t, HW_EV_MTU_MISMATCH);
	assert_non_null(e);
	assert_true((strcmp(e->a_node, "leaf1") == 0 && strcmp(e->b_port, "Ethernet48") == 0) ||
	            (strcmp(e->a_node, "spine1") == 0 && strcmp(e->b_port, "Ethernet0") == 0));
	hw_topo_free(&t);
}

/* One side stops: the link disappears when its TTL runs out before the capture ends. */
static void link_disappears(void **state)
{
	(void)state;
	struct cap c;
	cap_open(&c, DLT_EN10MB);
	struct test_end a = {1, "eth1", "a", 4, 0, -1, 0}, b = {2, "eth1", "b", 4, 0, -1, 0};
	for (int k = 0; k < 10; k++) {
		cap_frame(&c, a, 100 + k, 0);
		if (k < 3)
			cap_frame(&c, b, 100.5 + k, 0);
	}
	cap_close(&c);
	struct hw_topo t;
	hw_topo_init(&t);
	assert_int_equal(hw_topo_load_pcap(&t, c.path, 0, 0, NULL), HW_TOPO_OK);
	remove(c.path);
	assert_int_equal(t.n_links, 1);
	assert_int_equal(hw_topo_links_up(&t), 0);
	assert_non_null(find(&t, HW_EV_LINK_DISAPPEARED));
	hw_topo_free(&t);
}

/* An SLL2 capture on "any": senders are paired per interface index, not across interfaces. */
static void sll2_segments(void **state)
{
	(void)state;
	struct cap c;
	cap_open(&c, DLT_LINUX_SLL2);
	struct test_end me1 = {1, "eth1", "me", 120, 0, 0x08, 0}, me2 = {1, "eth2", "me", 120, 0, 0x08, 0};
	struct test_end x = {2, "p1", "x", 120, 0, 0x08, 0}, y = {3, "p9", "y", 120, 0, 0x10, 0};
	for (int k = 0; k < 2; k++) {
		cap_frame(&c, me1, 10 + k, 5);
		cap_frame(&c, x, 10.1 + k, 5);
		cap_frame(&c, me2, 10.2 + k, 6);
		cap_frame(&c, y, 10.3 + k, 6);
	}
	cap_close(&c);
	struct hw_topo t;
	hw_topo_init(&t);
	assert_int_equal(hw_topo_load_pcap(&t, c.path, 0, 0, NULL), HW_TOPO_OK);
	remove(c.path);
	assert_int_equal(t.n_nodes, 3);
	assert_int_equal(t.n_links, 2);
	hw_topo_check(&t);
	const struct hw_topo_event *e = find(&t, HW_EV_PFC_MISMATCH);
	assert_non_null(e);
	assert_true(strcmp(e->a_node, "y") == 0 || strcmp(e->b_node, "y") == 0);
	hw_topo_free(&t);
}

static void errors(void **state)
{
	(void)state;
	struct hw_topo t;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	assert_int_equal(hw_topo_load_pcap(&t, "/nonexistent.pcap", 0, 0, &err), HW_TOPO_E_PCAP);
	assert_non_null(strstr(err.message, "/nonexistent.pcap"));
	struct cap c;
	cap_open(&c, DLT_RAW);
	cap_close(&c);
	assert_int_equal(hw_topo_load_pcap(&t, c.path, 0, 0, &err), HW_TOPO_E_LINKTYPE);
	remove(c.path);
	assert_string_equal(hw_topo_result_name(HW_TOPO_E_LINKTYPE), "linktype");
	hw_topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(mtu_mismatch_from_capture),
	    cmocka_unit_test(link_disappears),
	    cmocka_unit_test(sll2_segments),
	    cmocka_unit_test(errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
