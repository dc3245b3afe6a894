/* LLDP frames from a capture file or a live interface through libpcap (Ethernet, Linux SLL, SLL2).
 * The senders heard on one segment (a file, or one interface index of an SLL2 capture) are neighbours. */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

struct member {
	uint32_t port;
	uint16_t ttl;
	double time;
};

struct segment {
	uint32_t ifindex;
	struct member *m;
	uint32_t n, cap;
};

struct capture {
	struct hw_topo *t;
	int linktype;
	struct segment *seg;
	uint32_t n_seg;
	double last;
	int nomem;
};

static struct segment *segment_of(struct capture *c, uint32_t ifindex)
{
	for (uint32_t i = 0; i < c->n_seg; i++)
		if (c->seg[i].ifindex == ifindex)
			return &c->seg[i];
	struct segment *s = realloc(c->seg, (c->n_seg + 1) * sizeof(*s));
	if (!s)
		return NULL;
	c->seg = s;
	s = &c->seg[c->n_seg++];
	memset(s, 0, sizeof(*s));
	s->ifindex = ifindex;
	return s;
}

/* The sender `port` spoke on segment s: everyone else there hears it; a newcomer hears the others. */
static void heard(struct capture *c, struct segment *s, uint32_t port, uint16_t ttl, double time)
{
	struct member *me = NULL;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->m[i].port == port)
			me = &s->m[i];
	int fresh = me == NULL;
	if (fresh) {
		if (s->n == s->cap) {
			uint32_t cap = s->cap ? s->cap * 2 : 4;
			struct member *m = realloc(s->m, cap * sizeof(*m));
			if (!m) {
				c->nomem = 1;
				return;
			}
			s->m = m;
			s->cap = cap;
		}
		me = &s->m[s->n++];
		me->port = port;
	}
	me->ttl = ttl;
	me->time = time;
	for (uint32_t i = 0; i < s->n; i++) {
		struct member *o = &s->m[i];
		if (o->port == port || !o->ttl || o->time + o->ttl < time)
			continue;
		hw_topo_observe(c->t, o->port, port, ttl, time);
		if (fresh && ttl)
			hw_topo_observe(c->t, port, o->port, o->ttl, o->time);
	}
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;
	struct hw_lldp_info info;
	enum hw_lldp_result r;
	uint32_t ifindex = 0;
	size_t len = h->caplen;
	double time = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e6;

	if (c->linktype == DLT_EN10MB) {
		r = hw_lldp_parse_frame(bytes, len, &info);
	} else if (c->linktype == DLT_LINUX_SLL) {
		/* type 2 | arphrd 2 | addr len 2 | addr 8 | protocol 2 */
		if (len < 16)
			r = HW_LLDP_E_L2_TRUNCATED;
		else if ((bytes[14] << 8 | bytes[15]) != HW_LLDP_ETHERTYPE)
			r = HW_LLDP_NOT_LLDP;
		else
			r = hw_lldp_parse_pdu(bytes + 16, len - 16, &info);
	} else {
		/* SLL2: protocol 2 | reserved 2 | ifindex 4 | arphrd 2 | type 1 | addr len 1 | addr 8 */
		if (len < 20)
			r = HW_LLDP_E_L2_TRUNCATED;
		else if ((bytes[0] << 8 | bytes[1]) != HW_LLDP_ETHERTYPE)
			r = HW_LLDP_NOT_LLDP;
		else
			r = hw_lldp_parse_pdu(bytes + 20, len - 20, &info);
		if (len >= 8)
			ifindex =
			    (uint32_t)bytes[4] << 24 | (uint32_t)bytes[5] << 16 | (uint32_t)bytes[6] << 8 | bytes[7];
	}
	if (r == HW_LLDP_NOT_LLDP)
		return;
	if (time > c->last)
		c->last = time;
	if (r != HW_LLDP_OK) {
		c->t->frames_rejected[r]++;
		return;
	}
	c->t->frames_lldp++;
	uint32_t port = hw_topo_advertise(c->t, &info, time);
	struct segment *s = segment_of(c, ifindex);
	if (port == HW_TOPO_NONE || !s) {
		c->nomem = 1;
		return;
	}
	heard(c, s, port, info.ttl, time);
}

/* At the end of a capture, links between senders of one segment whose TTL ran out have disappeared. */
static void expire_segments(struct capture *c)
{
	for (uint32_t i = 0; i < c->n_seg; i++) {
		struct segment *s = &c->seg[i];
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t li = c->t->ports[s->m[k].port].link;
			if (li != HW_TOPO_NONE)
				hw_topo_expire_link(c->t, li, c->last);
		}
		free(s->m);
	}
	free(c->seg);
}

static double now_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static pcap_t *open_live(const char *iface, char *errbuf, int *rc)
{
	pcap_t *p = pcap_create(iface, errbuf);
	if (!p)
		return NULL;
	pcap_set_snaplen(p, 65535);
	pcap_set_promisc(p, 1);
	pcap_set_timeout(p, 100);
	pcap_set_immediate_mode(p, 1);
	*rc = pcap_activate(p);
	if (*rc < 0) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	/* On "any", SLL2 carries the interface index that tells the segments apart. */
	if (pcap_datalink(p) == DLT_LINUX_SLL)
		pcap_set_datalink(p, DLT_LINUX_SLL2);
	struct bpf_program prog;
	if (pcap_compile(p, &prog, "ether proto 0x88cc", 1, PCAP_NETMASK_UNKNOWN) == 0) {
		pcap_setfilter(p, &prog);
		pcap_freecode(&prog);
	}
	return p;
}

enum hw_topo_result hw_topo_load_pcap(struct hw_topo *t, const char *source, int live, double seconds,
                                      struct hw_topo_error *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	int rc = 0;
	pcap_t *p = live ? open_live(source, errbuf, &rc) : pcap_open_offline(source, errbuf);
	if (!p)
		return hw_topo_fail(err, HW_TOPO_E_PCAP, "%s: %s", source, errbuf);
	struct capture c = {.t = t, .linktype = pcap_datalink(p)};
	if (c.linktype != DLT_EN10MB && c.linktype != DLT_LINUX_SLL && c.linktype != DLT_LINUX_SLL2) {
		pcap_close(p);
		return hw_topo_fail(err, HW_TOPO_E_LINKTYPE, "%s: link type %s", source,
		                    pcap_datalink_val_to_name(c.linktype) ? pcap_datalink_val_to_name(c.linktype)
		                                                          : "?");
	}
	enum hw_topo_result res = HW_TOPO_OK;
	if (live) {
		double end = now_s() + seconds;
		while (now_s() < end && !c.nomem)
			if (pcap_dispatch(p, -1, on_frame, (u_char *)&c) < 0) {
				res = hw_topo_fail(err, HW_TOPO_E_PCAP, "%s: %s", source, pcap_geterr(p));
				break;
			}
		c.last = now_s();
	} else if (pcap_loop(p, -1, on_frame, (u_char *)&c) == PCAP_ERROR) {
		res = hw_topo_fail(err, HW_TOPO_E_PCAP, "%s: %s", source, pcap_geterr(p));
	}
	pcap_close(p);
	expire_segments(&c);
	if (c.nomem && res == HW_TOPO_OK)
		res = hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: out of memory", source);
	return res;
}
