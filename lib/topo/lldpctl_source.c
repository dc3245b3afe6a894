/* The local lldpd's neighbour table through liblldpctl, for an analyzer that runs on a host in the fabric.
 * Built only when meson finds liblldpctl (lldpctl_none.c stands in otherwise). */
#include <arpa/inet.h>
#include <lldpctl.h>
#include <string.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"

static void get_str(lldpctl_atom_t *a, lldpctl_key_t k, char *dst, size_t size)
{
	const char *s = lldpctl_atom_get_str(a, k);
	snprintf(dst, size, "%s", s ? s : "");
}

/* The chassis part of an advertisement from a chassis atom. */
static void read_chassis(lldpctl_atom_t *chassis, struct hw_lldp_info *info)
{
	info->chassis.subtype = (uint8_t)lldpctl_atom_get_int(chassis, lldpctl_k_chassis_id_subtype);
	get_str(chassis, lldpctl_k_chassis_id, info->chassis.text, sizeof(info->chassis.text));
	get_str(chassis, lldpctl_k_chassis_name, info->sys_name, sizeof(info->sys_name));
	get_str(chassis, lldpctl_k_chassis_descr, info->sys_descr, sizeof(info->sys_descr));
	info->has |= (info->sys_name[0] ? HW_LLDP_HAS_SYS_NAME : 0) | HW_LLDP_HAS_SYS_DESCR | HW_LLDP_HAS_CAPABILITIES;
	info->cap_system = (uint16_t)lldpctl_atom_get_int(chassis, lldpctl_k_chassis_cap_available);
	info->cap_enabled = (uint16_t)lldpctl_atom_get_int(chassis, lldpctl_k_chassis_cap_enabled);
	lldpctl_atom_t *mgmts = lldpctl_atom_get(chassis, lldpctl_k_chassis_mgmt), *m;
	lldpctl_atom_foreach(mgmts, m)
	{
		const char *ip = lldpctl_atom_get_str(m, lldpctl_k_mgmt_ip);
		struct hw_lldp_mgmt *x = &info->mgmt[info->n_mgmt];
		if (!ip || info->n_mgmt >= HW_LLDP_MGMT_MAX)
			continue;
		if (inet_pton(AF_INET, ip, x->addr) == 1)
			x->family = 1, x->len = 4;
		else if (inet_pton(AF_INET6, ip, x->addr) == 1)
			x->family = 2, x->len = 16;
		else
			continue;
		snprintf(x->text, sizeof(x->text), "%s", ip);
		info->n_mgmt++;
	}
	lldpctl_atom_dec_ref(mgmts);
}

static void read_neighbor(lldpctl_atom_t *nb, struct hw_lldp_info *info)
{
	memset(info, 0, sizeof(*info));
	lldpctl_atom_t *chassis = lldpctl_atom_get(nb, lldpctl_k_port_chassis);
	if (chassis) {
		read_chassis(chassis, info);
		lldpctl_atom_dec_ref(chassis);
	}
	info->port.subtype = (uint8_t)lldpctl_atom_get_int(nb, lldpctl_k_port_id_subtype);
	get_str(nb, lldpctl_k_port_id, info->port.text, sizeof(info->port.text));
	get_str(nb, lldpctl_k_port_descr, info->port_descr, sizeof(info->port_descr));
	if (info->port_descr[0])
		info->has |= HW_LLDP_HAS_PORT_DESCR;
	long ttl = lldpctl_atom_get_int(nb, lldpctl_k_port_ttl);
	info->ttl = (uint16_t)(ttl > 0 && ttl < 65536 ? ttl : 120);
	long mfs = lldpctl_atom_get_int(nb, lldpctl_k_port_dot3_mfs);
	if (mfs > 0 && mfs < 65536) {
		info->max_frame = (uint16_t)mfs;
		info->has |= HW_LLDP_HAS_MAX_FRAME;
	}
	long pvid = lldpctl_atom_get_int(nb, lldpctl_k_port_vlan_pvid);
	if (pvid > 0 && pvid < 4096) {
		info->port_vlan = (uint16_t)pvid;
		info->has |= HW_LLDP_HAS_PORT_VLAN;
	}
}

enum hw_topo_result hw_topo_load_lldpctl(struct hw_topo *t, const char *socket, double now, struct hw_topo_error *err)
{
	const char *name = socket ? socket : lldpctl_get_default_transport();
	lldpctl_conn_t *conn = lldpctl_new_name(name, NULL, NULL, NULL);
	if (!conn)
		return hw_topo_fail(err, HW_TOPO_E_LLDPCTL, "%s: cannot create an lldpctl connection", name);
	struct hw_lldp_info self, info;
	memset(&self, 0, sizeof(self));
	lldpctl_atom_t *lc = lldpctl_get_local_chassis(conn);
	if (!lc) {
		enum hw_topo_result r =
		    hw_topo_fail(err, HW_TOPO_E_LLDPCTL, "%s: %s", name, lldpctl_last_strerror(conn));
		lldpctl_release(conn);
		return r;
	}
	read_chassis(lc, &self);
	lldpctl_atom_dec_ref(lc);
	uint32_t local = hw_topo_node_of(t, &self, now);
	lldpctl_atom_t *ifaces = lldpctl_get_interfaces(conn), *iface;
	lldpctl_atom_foreach(ifaces, iface)
	{
		lldpctl_atom_t *port = lldpctl_get_port(iface), *nb;
		const char *ifname = lldpctl_atom_get_str(iface, lldpctl_k_interface_name);
		lldpctl_atom_t *nbs = port ? lldpctl_atom_get(port, lldpctl_k_port_neighbors) : NULL;
		lldpctl_atom_foreach(nbs, nb)
		{
			read_neighbor(nb, &info);
			long age = lldpctl_atom_get_int(nb, lldpctl_k_port_age);
			double learned = age > 0 ? (double)age : now;
			uint32_t remote = hw_topo_advertise(t, &info, learned);
			uint32_t lp =
			    local == HW_TOPO_NONE ? HW_TOPO_NONE : hw_topo_local_port(t, local, ifname, learned);
			hw_topo_observe(t, lp, remote, info.ttl, learned);
		}
		lldpctl_atom_dec_ref(nbs);
		lldpctl_atom_dec_ref(port);
	}
	lldpctl_atom_dec_ref(ifaces);
	lldpctl_release(conn);
	return local == HW_TOPO_NONE ? hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: out of memory", name) : HW_TOPO_OK;
}
