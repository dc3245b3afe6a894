/* Import of lldpd's view of a switch: `lldpcli -f json0 show neighbors details` (every value wrapped
 * in an array) or the singleton-collapsing `-f json` shape, optionally after `show chassis` in one file. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"

/* One switch's dump: its local chassis (may be NULL) and its neighbour table. */
struct dump {
	char path[1024];
	char stem[256];
	json_t *chassis; /* the object under "local-chassis" */
	json_t *lldp;    /* the object under "lldp" */
};

/* json0 wraps every value in a one-element array; -f json does not. */
static json_t *one(json_t *v)
{
	return json_is_array(v) ? json_array_get(v, 0) : v;
}

/* A string value in any of the shapes: "x", {"value": "x"}, [{"value": "x"}]. */
static const char *str_of(json_t *v)
{
	v = one(v);
	if (json_is_object(v))
		v = json_object_get(v, "value");
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void put_str(char *dst, size_t size, json_t *v)
{
	const char *s = str_of(v);
	snprintf(dst, size, "%s", s ? s : "");
}

/* Call f(name, entry) for each entry of a list that json0 gives as [{"name": n, ...}], and -f json as
 * {n: {...}} or, when there are several, [{n1: {...}}, {n2: {...}}]. */
typedef void (*named_fn)(const char *name, json_t *entry, void *arg);
static void each_named(json_t *v, named_fn f, void *arg)
{
	size_t i;
	json_t *e;
	const char *k;
	if (json_is_array(v)) {
		json_array_foreach(v, i, e)
		{
			json_t *n = json_object_get(e, "name");
			if (json_is_string(n))
				f(json_string_value(n), e, arg);
			else
				each_named(e, f, arg);
		}
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, e) if (json_is_object(e)) f(k, e, arg);
	}
}

static void set_id(struct hw_lldp_id *id, json_t *idv, int is_port)
{
	idv = one(idv);
	const char *type = str_of(json_object_get(idv, "type"));
	const char *value = str_of(idv);
	static const struct {
		const char *name;
		uint8_t chassis, port;
	} types[] = {{"mac", HW_LLDP_CHASSIS_MAC, HW_LLDP_PORT_MAC},
	             {"ip", HW_LLDP_CHASSIS_NETADDR, HW_LLDP_PORT_NETADDR},
	             {"ifname", HW_LLDP_CHASSIS_IFNAME, HW_LLDP_PORT_IFNAME},
	             {"ifalias", HW_LLDP_CHASSIS_IFALIAS, HW_LLDP_PORT_IFALIAS},
	             {"local", HW_LLDP_CHASSIS_LOCAL, HW_LLDP_PORT_LOCAL}};
	id->subtype = is_port ? HW_LLDP_PORT_LOCAL : HW_LLDP_CHASSIS_LOCAL;
	for (size_t i = 0; type && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i].name) == 0)
			id->subtype = is_port ? types[i].port : types[i].chassis;
	snprintf(id->text, sizeof(id->text), "%s", value ? value : "");
	id->len = (uint8_t)strnlen(id->text, HW_LLDP_ID_MAX);
}

static void add_mgmt(struct hw_lldp_info *info, const char *ip)
{
	if (!ip || info->n_mgmt >= HW_LLDP_MGMT_MAX)
		return;
	struct hw_lldp_mgmt *m = &info->mgmt[info->n_mgmt];
	if (inet_pton(AF_INET, ip, m->addr) == 1) {
		m->family = 1;
		m->len = 4;
	} else if (inet_pton(AF_INET6, ip, m->addr) == 1) {
		m->family = 2;
		m->len = 16;
	} else {
		return;
	}
	snprintf(m->text, sizeof(m->text), "%s", ip);
	info->n_mgmt++;
}

static uint16_t cap_bit(const char *type)
{
	static const struct {
		const char *name;
		uint16_t bit;
	} caps[] = {
	    {"Other", HW_LLDP_CAP_OTHER},   {"Repeater", HW_LLDP_CAP_REPEATER}, {"Bridge", HW_LLDP_CAP_BRIDGE},
	    {"Wlan", HW_LLDP_CAP_WLAN},     {"Router", HW_LLDP_CAP_ROUTER},     {"Telephone", HW_LLDP_CAP_TELEPHONE},
	    {"Docsis", HW_LLDP_CAP_DOCSIS}, {"Station", HW_LLDP_CAP_STATION},   {"CVLAN", HW_LLDP_CAP_CVLAN},
	    {"SVLAN", HW_LLDP_CAP_SVLAN},   {"TPMR", HW_LLDP_CAP_TPMR}};
	for (size_t i = 0; type && i < sizeof(caps) / sizeof(caps[0]); i++)
		if (strcasecmp(type, caps[i].name) == 0)
			return caps[i].bit;
	return 0;
}

/* Fill info's chassis part from a chassis value: json0 [{"id":..,"name":..}], -f json {"sysA": {...}}
 * or, for a chassis without a name, {"id": ...}. */
static int read_chassis(json_t *cv, struct hw_lldp_info *info)
{
	cv = one(cv);
	if (!json_is_object(cv))
		return 0;
	if (!json_object_get(cv, "id") && json_object_size(cv) == 1) {
		void *it = json_object_iter(cv);
		snprintf(info->sys_name, sizeof(info->sys_name), "%s", json_object_iter_key(it));
		info->has |= HW_LLDP_HAS_SYS_NAME;
		cv = one(json_object_iter_value(it));
	}
	if (!json_object_get(cv, "id"))
		return 0;
	set_id(&info->chassis, json_object_get(cv, "id"), 0);
	if (json_object_get(cv, "name")) {
		put_str(info->sys_name, sizeof(info->sys_name), json_object_get(cv, "name"));
		info->has |= HW_LLDP_HAS_SYS_NAME;
	}
	if (json_object_get(cv, "descr")) {
		put_str(info->sys_descr, sizeof(info->sys_descr), json_object_get(cv, "descr"));
		info->has |= HW_LLDP_HAS_SYS_DESCR;
	}
	json_t *ips = json_object_get(cv, "mgmt-ip"), *e;
	size_t i;
	if (json_is_array(ips))
		json_array_foreach(ips, i, e) add_mgmt(info, str_of(e));
	else
		add_mgmt(info, str_of(ips));
	json_t *caps = json_object_get(cv, "capability");
	if (caps) {
		info->has |= HW_LLDP_HAS_CAPABILITIES;
		json_t *list = json_is_array(caps) ? caps : json_pack("[O]", caps);
		json_array_foreach(list, i, e)
		{
			uint16_t bit = cap_bit(str_of(json_object_get(e, "type")));
			info->cap_system |= bit;
			if (json_is_true(json_object_get(e, "enabled")))
				info->cap_enabled |= bit;
		}
		if (list != caps)
			json_decref(list);
	}
	return 1;
}

static unsigned long num_of(json_t *v)
{
	const char *s = str_of(v);
	return s ? strtoul(s, NULL, 10) : 0;
}

/* "0 day, 00:00:02" -> seconds. */
static double age_of(json_t *v)
{
	const char *s = str_of(v);
	unsigned d = 0, h = 0, m = 0, sec = 0;
	if (!s || sscanf(s, "%u day%*[^,], %u:%u:%u", &d, &h, &m, &sec) != 4)
		return 0;
	return ((d * 24.0 + h) * 60.0 + m) * 60.0 + sec;
}

/* A neighbour entry (one interface of the dump) as an advertisement.  0 when it has no chassis/port. */
static int read_neighbor(json_t *e, struct hw_lldp_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!read_chassis(json_object_get(e, "chassis"), info))
		return 0;
	json_t *pv = one(json_object_get(e, "port"));
	if (!json_is_object(pv) || !json_object_get(pv, "id"))
		return 0;
	set_id(&info->port, json_object_get(pv, "id"), 1);
	if (json_object_get(pv, "descr")) {
		put_str(info->port_descr, sizeof(info->port_descr), json_object_get(pv, "descr"));
		info->has |= HW_LLDP_HAS_PORT_DESCR;
	}
	json_t *ttl = json_object_get(pv, "ttl") ? json_object_get(pv, "ttl") : json_object_get(e, "ttl");
	info->ttl = ttl ? (uint16_t)num_of(ttl) : 120;
	if (json_object_get(pv, "mfs")) {
		info->max_frame = (uint16_t)num_of(json_object_get(pv, "mfs"));
		info->has |= HW_LLDP_HAS_MAX_FRAME;
	}
	if (json_object_get(pv, "aggregation")) {
		info->agg_port_id = (uint32_t)num_of(json_object_get(pv, "aggregation"));
		info->agg_status = 3;
		info->has |= HW_LLDP_HAS_LINK_AGG;
	}
	json_t *vl = json_object_get(e, "vlan"), *x;
	size_t i;
	json_t *list = json_is_array(vl) ? vl : NULL;
	if (list) {
		json_array_foreach(list, i, x) if (json_is_true(json_object_get(x, "pvid")))
		{
			info->port_vlan = (uint16_t)num_of(json_object_get(x, "vlan-id"));
			info->has |= HW_LLDP_HAS_PORT_VLAN;
		}
	} else if (json_is_object(vl) && json_is_true(json_object_get(vl, "pvid"))) {
		info->port_vlan = (uint16_t)num_of(json_object_get(vl, "vlan-id"));
		info->has |= HW_LLDP_HAS_PORT_VLAN;
	}
	return 1;
}

struct pass {
	struct hw_topo *t;
	double now;
	uint32_t local; /* local node, or HW_TOPO_NONE in the first pass */
};

static void on_interface(const char *ifname, json_t *e, void *arg)
{
	struct pass *ps = arg;
	struct hw_lldp_info info;
	if (!read_neighbor(e, &info))
		return;
	double learned = ps->now - age_of(json_object_get(e, "age"));
	uint32_t remote = hw_topo_advertise(ps->t, &info, learned);
	if (ps->local == HW_TOPO_NONE || remote == HW_TOPO_NONE)
		return;
	uint32_t lp = hw_topo_local_port(ps->t, ps->local, ifname, learned);
	hw_topo_observe(ps->t, lp, remote, info.ttl ? info.ttl : 1, learned);
}

static enum hw_topo_result dump_read(struct dump *d, const char *path, const char *stem, struct hw_topo_error *err)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->stem, sizeof(d->stem), "%s", stem ? stem : "");
	FILE *f = fopen(path, "rb");
	if (!f)
		return hw_topo_fail(err, HW_TOPO_E_IO, "%s: cannot open", path);
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len + 65536 > cap) {
			char *b = realloc(buf, cap = cap * 2 + 65536);
			if (!b) {
				free(buf);
				fclose(f);
				return hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: out of memory", path);
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	enum hw_topo_result res = HW_TOPO_OK;
	size_t off = 0;
	while (res == HW_TOPO_OK) {
		while (off < len && isspace((unsigned char)buf[off]))
			off++;
		if (off >= len)
			break;
		json_error_t je;
		json_t *doc = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
		if (!doc) {
			res = hw_topo_fail(err, HW_TOPO_E_JSON, "%s: line %d: %s", path, je.line, je.text);
			break;
		}
		off += (size_t)je.position;
		json_t *lc = json_object_get(doc, "local-chassis"), *l = json_object_get(doc, "lldp");
		if (lc && !d->chassis)
			d->chassis = json_incref(one(lc));
		else if (l && !d->lldp)
			d->lldp = json_incref(one(l));
		else if (!lc && !l)
			res = hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                   "%s: neither \"lldp\" (show neighbors) nor \"local-chassis\" (show chassis)",
			                   path);
		json_decref(doc);
	}
	free(buf);
	if (res == HW_TOPO_OK && !d->lldp)
		res = hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: no \"lldp\" neighbour table", path);
	return res;
}

static void dump_free(struct dump *d)
{
	json_decref(d->chassis);
	json_decref(d->lldp);
}

/* The dump's own chassis (from `show chassis`), live now for lldpd's default TTL; HW_TOPO_NONE without one.
 * Two dumps that claim one chassis ID under different names raise DuplicateChassisId: lldpd itself merges
 * neighbours by chassis ID, so a single switch's neighbour table cannot show the conflict. */
static uint32_t own_chassis(struct hw_topo *t, struct dump *d, double now)
{
	struct hw_lldp_info info;
	memset(&info, 0, sizeof(info));
	if (!d->chassis || !read_chassis(json_object_get(d->chassis, "chassis"), &info))
		return HW_TOPO_NONE;
	info.ttl = 120;
	return hw_topo_node_of(t, &info, now);
}

/* First pass: every neighbour and every local chassis becomes a node. */
static void dump_nodes(struct hw_topo *t, struct dump *d, double now)
{
	struct pass ps = {t, now, HW_TOPO_NONE};
	each_named(json_object_get(d->lldp, "interface"), on_interface, &ps);
	own_chassis(t, d, now);
}

/* Second pass: the local node (its chassis, else the node named like the file) sees each neighbour. */
static enum hw_topo_result dump_links(struct hw_topo *t, struct dump *d, double now, struct hw_topo_error *err)
{
	struct hw_lldp_info info;
	memset(&info, 0, sizeof(info));
	uint32_t local = own_chassis(t, d, now);
	if (local == HW_TOPO_NONE && !d->chassis && d->stem[0])
		local = hw_topo_find_node_by_name(t, d->stem);
	if (local == HW_TOPO_NONE && d->stem[0]) {
		/* Nobody names this switch: keep it, known by its file name. */
		info.chassis.subtype = HW_LLDP_CHASSIS_LOCAL;
		snprintf(info.chassis.text, sizeof(info.chassis.text), "%s", d->stem);
		snprintf(info.sys_name, sizeof(info.sys_name), "%s", d->stem);
		info.has = HW_LLDP_HAS_SYS_NAME;
		local = hw_topo_node_of(t, &info, now);
	}
	if (local == HW_TOPO_NONE)
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: cannot tell which switch this dump is from", d->path);
	t->nodes[local].observer = 1;
	struct pass ps = {t, now, local};
	each_named(json_object_get(d->lldp, "interface"), on_interface, &ps);
	return HW_TOPO_OK;
}

static void stem_of(const char *path, char *stem, size_t size)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	snprintf(stem, size, "%s", b);
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem)
		*dot = '\0';
}

enum hw_topo_result hw_topo_load_lldpd_json(struct hw_topo *t, const char *path, const char *local_name, double now,
                                            struct hw_topo_error *err)
{
	struct dump d;
	char stem[256];
	if (!local_name) {
		stem_of(path, stem, sizeof(stem));
		local_name = stem;
	}
	enum hw_topo_result r = dump_read(&d, path, local_name, err);
	if (r == HW_TOPO_OK) {
		dump_nodes(t, &d, now);
		r = dump_links(t, &d, now, err);
	}
	dump_free(&d);
	return r;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int json_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
}

enum hw_topo_result hw_topo_load_lldpd_dir(struct hw_topo *t, const char *dir, double now, struct hw_topo_error *err)
{
	struct dirent **names;
	int n = scandir(dir, &names, json_file, by_name);
	if (n < 0)
		return hw_topo_fail(err, HW_TOPO_E_IO, "%s: cannot read the directory", dir);
	struct dump *d = calloc((size_t)n + 1, sizeof(*d));
	enum hw_topo_result r = d ? HW_TOPO_OK : hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: out of memory", dir);
	for (int i = 0; i < n && r == HW_TOPO_OK; i++) {
		char path[2048], stem[256];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		stem_of(path, stem, sizeof(stem));
		r = dump_read(&d[i], path, stem, err);
	}
	if (r == HW_TOPO_OK && n == 0)
		r = hw_topo_fail(err, HW_TOPO_E_IO, "%s: no *.json dumps", dir);
	for (int i = 0; i < n && r == HW_TOPO_OK; i++)
		dump_nodes(t, &d[i], now);
	for (int i = 0; i < n && r == HW_TOPO_OK; i++)
		r = dump_links(t, &d[i], now, err);
	for (int i = 0; i < n; i++) {
		if (d)
			dump_free(&d[i]);
		free(names[i]);
	}
	free(names);
	free(d);
	return r;
}

enum hw_topo_result hw_topo_load_lldpd_path(struct hw_topo *t, const char *path, double now, struct hw_topo_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return hw_topo_load_lldpd_dir(t, path, now, err);
	return hw_topo_load_lldpd_json(t, path, NULL, now, err);
}
