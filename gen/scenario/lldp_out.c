/* LLDP views of the scenario fabric: lldp.pcap (SLL2, one interface index per link, both ends' frames
 * with MFS and PFC TLVs, shutdown/re-advertise on link events), lldpcli -f json0 dumps and map.json. */
#include <errno.h>
#include <jansson.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes.h"
#include "scen.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

#define SC_LLDP_TTL 120

static void port_mac(const struct sc_topo *t, uint32_t port, uint8_t mac[6])
{
	memcpy(mac, t->nodes[t->ports[port].node].mac, 6);
	mac[5] = (uint8_t)t->ports[port].num;
}

static uint8_t *tlv(uint8_t *p, unsigned type, const void *v, size_t len)
{
	p = gen_put16(p, (uint32_t)(type << 9 | len));
	memcpy(p, v, len);
	return p + len;
}

static const char *tier_descr(unsigned tier)
{
	static const char *const d[] = {"hopwatch scenario host", "hopwatch scenario leaf", "hopwatch scenario spine",
	                                "hopwatch scenario core"};
	return d[tier < 4 ? tier : 0];
}

/* One LLDPDU from port p (without Ethernet: SLL2 carries the payload); ttl 0 = shutdown. */
static size_t lldpdu(const struct sc_topo *t, uint32_t port, uint16_t mfs, unsigned ttl, uint8_t *buf)
{
	const struct sc_port *pt = &t->ports[port];
	const struct sc_node *n = &t->nodes[pt->node];
	uint8_t v[300], *p = buf;
	char name[SC_NAME_MAX];
	v[0] = 4; /* chassis ID: MAC address */
	memcpy(v + 1, n->mac, 6);
	p = tlv(p, 1, v, 7);
	sc_port_name(t, port, name, sizeof(name));
	v[0] = 5; /* port ID: interface name */
	memcpy(v + 1, name, strlen(name));
	p = tlv(p, 2, v, 1 + strlen(name));
	gen_put16(v, ttl);
	p = tlv(p, 3, v, 2);
	if (ttl) {
		p = tlv(p, 4, name, strlen(name));
		p = tlv(p, 5, n->name, strlen(n->name));
		const char *d = tier_descr(n->tier);
		p = tlv(p, 6, d, strlen(d));
		/* capabilities: switches are bridge + router with routing on (an L3 fabric), hosts stations */
		uint16_t sys = n->tier == SC_HOST ? 0x0080 : 0x0014, en = n->tier == SC_HOST ? 0x0080 : 0x0010;
		gen_put16(v, sys);
		gen_put16(v + 2, en);
		p = tlv(p, 7, v, 4);
		/* management address: IPv4, interface numbering ifIndex 1, no OID */
		v[0] = 5;
		v[1] = 1;
		gen_put32(v + 2, n->id);
		v[6] = 2;
		gen_put32(v + 7, 1);
		v[11] = 0;
		p = tlv(p, 8, v, 12);
		/* 802.3 maximum frame size */
		static const uint8_t oui8023[3] = {0x00, 0x12, 0x0f}, oui8021[3] = {0x00, 0x80, 0xc2};
		memcpy(v, oui8023, 3);
		v[3] = 4;
		gen_put16(v + 4, mfs);
		p = tlv(p, 127, v, 6);
		/* 802.1Qaz PFC configuration: not willing, no MBC, 8 PFC-capable classes, enabled priorities */
		memcpy(v, oui8021, 3);
		v[3] = 0x0b;
		v[4] = 8;
		v[5] = pt->pfc;
		p = tlv(p, 127, v, 6);
	}
	return (size_t)(tlv(p, 0, v, 0) - buf);
}

struct lldp_writer {
	pcap_dumper_t *d;
	const struct sc_topo *t;
	uint64_t last;
};

static void put_frame(struct lldp_writer *w, uint32_t port, uint16_t mfs, unsigned ttl, uint64_t t_ns)
{
	uint8_t buf[600];
	uint8_t *h = buf;
	memset(h, 0, 20);
	/* SLL2: protocol | reserved | interface index | ARPHRD_ETHER | packet type | address length | address */
	gen_put16(h, 0x88cc);
	gen_put32(h + 4, w->t->ports[port].link + 1);
	gen_put16(h + 8, 1);
	h[10] = 0;
	h[11] = 6;
	port_mac(w->t, port, h + 12);
	size_t len = 20 + lldpdu(w->t, port, mfs, ttl, buf + 20);
	if (t_ns <= w->last)
		t_ns = w->last + 1;
	w->last = t_ns;
	struct pcap_pkthdr ph;
	ph.ts.tv_sec = (time_t)(t_ns / 1000000000u);
	ph.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u);
	ph.caplen = ph.len = (bpf_u_int32)len;
	pcap_dump((u_char *)w->d, &ph, buf);
}

static int write_pcap(const struct sc_sim *s, const char *path, char *err, size_t errlen)
{
	const struct sc_topo *t = s->t;
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_LINUX_SLL2, 65535, PCAP_TSTAMP_PRECISION_NANO);
	if (!pd) {
		snprintf(err, errlen, "%s: pcap_open_dead failed", path);
		return -1;
	}
	struct lldp_writer w = {pcap_dump_open(pd, path), t, 0};
	if (!w.d) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(pd));
		pcap_close(pd);
		return -1;
	}
	/* every link, both ends, in the millisecond before the run (state at time 0) */
	const uint64_t e0 = s->cfg->epoch_ns - 1000000;
	for (uint32_t l = 0; l < t->n_links; l++) {
		if (sc_link_down_at(s, l, 0))
			continue;
		put_frame(&w, t->links[l].a, sc_mfs_at(s, t->links[l].a, 0), SC_LLDP_TTL, e0 + l * 100);
		put_frame(&w, t->links[l].b, sc_mfs_at(s, t->links[l].b, 0), SC_LLDP_TTL, e0 + l * 100 + 50);
	}
	/* events that change what a link advertises, in time order: a link going down sends shutdown
	 * LLDPDUs (TTL 0) from both ends, coming back or changing MTU re-advertises */
	uint64_t times[2 * SC_MAX_EVENTS];
	unsigned nt = 0;
	for (unsigned i = 0; i < s->cfg->n_events; i++) {
		const struct sc_event *e = &s->cfg->events[i];
		if (e->kind != SC_EV_LINK_DOWN && e->kind != SC_EV_MTU)
			continue;
		if (e->start_ns > 0)
			times[nt++] = e->start_ns;
		if (e->end_ns < s->cfg->duration_ns)
			times[nt++] = e->end_ns;
	}
	for (unsigned i = 1; i < nt; i++)
		for (unsigned j = i; j > 0 && times[j] < times[j - 1]; j--) {
			uint64_t x = times[j];
			times[j] = times[j - 1];
			times[j - 1] = x;
		}
	for (unsigned i = 0; i < nt; i++) {
		const uint64_t now = times[i], before = now - 1;
		for (unsigned j = 0; j < s->cfg->n_events; j++) {
			const struct sc_event *e = &s->cfg->events[j];
			if ((e->kind != SC_EV_LINK_DOWN && e->kind != SC_EV_MTU) ||
			    (e->start_ns != now && e->end_ns != now))
				continue;
			const uint32_t l = t->ports[e->port].link, a = t->links[l].a, b = t->links[l].b;
			const int down = sc_link_down_at(s, l, now);
			if (down && !sc_link_down_at(s, l, before)) {
				put_frame(&w, a, 0, 0, s->cfg->epoch_ns + now);
				put_frame(&w, b, 0, 0, s->cfg->epoch_ns + now);
			} else if (!down) {
				put_frame(&w, a, sc_mfs_at(s, a, now), SC_LLDP_TTL, s->cfg->epoch_ns + now);
				put_frame(&w, b, sc_mfs_at(s, b, now), SC_LLDP_TTL, s->cfg->epoch_ns + now);
			}
		}
	}
	int rc = 0;
	if (pcap_dump_flush(w.d) || ferror(pcap_dump_file(w.d))) {
		snprintf(err, errlen, "%s: write failed", path);
		rc = -1;
	}
	pcap_dump_close(w.d);
	pcap_close(pd);
	return rc;
}

static json_t *vals(const char *v)
{
	return json_pack("[{s:s}]", "value", v);
}

static json_t *chassis_json(const struct sc_topo *t, uint32_t node)
{
	const struct sc_node *n = &t->nodes[node];
	char mac[32], ip[20];
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", n->mac[0], n->mac[1], n->mac[2], n->mac[3],
	         n->mac[4], n->mac[5]);
	sc_ip_text(n->id, ip, sizeof(ip));
	const int host = n->tier == SC_HOST;
	json_t *caps =
	    json_pack("[{s:s,s:b},{s:s,s:b},{s:s,s:b},{s:s,s:b}]", "type", "Bridge", "enabled", 0, "type", "Router",
	              "enabled", !host, "type", "Wlan", "enabled", 0, "type", "Station", "enabled", host);
	if (host) /* hosts do not claim bridge or router capability at all */
		json_array_remove(caps, 0);
	return json_pack("[{s:[{s:s,s:s}],s:o,s:o,s:o,s:o,s:o}]", "id", "type", "mac", "value", mac, "name",
	                 vals(n->name), "descr", vals(tier_descr(n->tier)), "mgmt-ip", vals(ip), "mgmt-iface",
	                 vals("1"), "capability", caps);
}

/* lldpcli -f json0 show chassis; lldpcli -f json0 show neighbors details, as of the end of the run. */
static int write_dump(const struct sc_sim *s, uint32_t node, const char *path, char *err, size_t errlen)
{
	const struct sc_topo *t = s->t;
	const struct sc_node *n = &t->nodes[node];
	const uint64_t end = s->cfg->duration_ns - 1;
	json_t *local = json_pack("{s:[{s:o}]}", "local-chassis", "chassis", chassis_json(t, node));
	json_t *ifs = json_array();
	unsigned rid = 0;
	for (uint32_t p = n->port0; p < n->port0 + n->n_ports; p++) {
		const uint32_t peer = t->ports[p].peer;
		if (peer == UINT32_MAX || sc_link_down_at(s, t->ports[p].link, end))
			continue;
		char local_name[SC_NAME_MAX], peer_name[SC_NAME_MAX], mfs[16], ridt[16];
		sc_port_name(t, p, local_name, sizeof(local_name));
		sc_port_name(t, peer, peer_name, sizeof(peer_name));
		snprintf(mfs, sizeof(mfs), "%u", sc_mfs_at(s, peer, end));
		snprintf(ridt, sizeof(ridt), "%u", ++rid);
		json_t *port = json_pack("[{s:[{s:s,s:s}],s:o,s:o,s:o}]", "id", "type", "ifname", "value", peer_name,
		                         "descr", vals(peer_name), "ttl", vals("120"), "mfs", vals(mfs));
		json_array_append_new(ifs, json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "name", local_name, "via", "LLDP",
		                                     "rid", ridt, "age", "0 day, 00:00:05", "chassis",
		                                     chassis_json(t, t->ports[peer].node), "port", port));
	}
	json_t *nb = json_pack("{s:[{s:o}]}", "lldp", "interface", ifs);
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f || json_dumpf(local, f, JSON_INDENT(2)) || fputs("\n\n", f) < 0 || json_dumpf(nb, f, JSON_INDENT(2)) ||
	    fputc('\n', f) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (f && fclose(f) && !rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	json_decref(local);
	json_decref(nb);
	return rc;
}

/* map.json for hopwatch-analyzer --map: node ids, INT port N is interface EthernetN; tiers as built; the fabric's
 * link speeds, PFC Xoff/Xon and lossy buffer. */
static int write_map(const struct sc_sim *s, const char *path, char *err, size_t errlen)
{
	static const char *const tiers[] = {"host", "leaf", "spine", "superspine"};
	const struct sc_topo *t = s->t;
	json_t *nodes = json_array();
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct sc_node *n = &t->nodes[i];
		/* a two-tier fabric's top is "spine"; a fat-tree's aggregation is spine and core superspine */
		char id[16]; /* the INT node id (a host: its IP), so that the map alone places the records */
		snprintf(id, sizeof(id), "%u.%u.%u.%u", n->id >> 24, n->id >> 16 & 255, n->id >> 8 & 255, n->id & 255);
		json_array_append_new(
		    nodes, json_pack("{s:s,s:s,s:s}", "name", n->name, "node_id", id, "tier", tiers[n->tier]));
	}
	/* the fabric the analyzer derives its thresholds from (docs/topology.md "fabric"): link speeds, PFC, buffers */
	const struct sc_cfg *c = s->cfg;
	json_t *fabric = json_pack("{s:f,s:f,s:f,s:f,s:f}", "host_gbps", (double)t->host_bps / 1e9, "fabric_gbps",
	                           (double)t->fabric_bps / 1e9, "xoff_bytes", c->xoff_bytes, "xon_bytes", c->xon_bytes,
	                           "lossy_buffer_bytes", c->lossy_buffer);
	json_t *m = json_pack("{s:s,s:o,s:o}", "port_format", "Ethernet%u", "fabric", fabric, "nodes", nodes);
	int rc = json_dump_file(m, path, JSON_INDENT(2));
	json_decref(m);
	if (rc)
		snprintf(err, errlen, "%s: cannot write", path);
	return rc ? -1 : 0;
}

int sc_lldp_write(const struct sc_sim *s, const char *dir, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/lldp.pcap", dir);
	if (write_pcap(s, path, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/lldp", dir);
	if (mkdir(path, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < s->t->n_nodes; i++) {
		snprintf(path, sizeof(path), "%s/lldp/%s.json", dir, s->t->nodes[i].name);
		if (write_dump(s, i, path, err, errlen))
			return -1;
	}
	snprintf(path, sizeof(path), "%s/map.json", dir);
	return write_map(s, path, err, errlen);
}
