/* Event names, severities and the event's JSON form (one line of the events file, the webhook body,
 * and the source of Alertmanager labels/annotations). */
#include <inttypes.h>
#include <string.h>

#include "hopwatch/analyzer.h"
#include "json_writer.h"

static const char *const names[] = {
#define HW_AN_X_NAME(e, n, s) n,
    HW_AN_KIND_LIST(HW_AN_X_NAME)
#undef HW_AN_X_NAME
};
static const char *const severities[] = {
#define HW_AN_X_SEV(e, n, s) s,
    HW_AN_KIND_LIST(HW_AN_X_SEV)
#undef HW_AN_X_SEV
};

const char *hw_an_kind_name(enum hw_an_kind k)
{
	return (unsigned)k < HW_AN_KIND_COUNT ? names[k] : "unknown";
}

const char *hw_an_kind_severity(enum hw_an_kind k)
{
	return (unsigned)k < HW_AN_KIND_COUNT ? severities[k] : "warning";
}

int hw_an_kind_by_name(const char *name)
{
	for (int k = 0; k < HW_AN_KIND_COUNT; k++)
		if (strcmp(names[k], name) == 0)
			return k;
	return -1;
}

/* A comma-separated list as a JSON array of strings ("" = []). */
static void json_list(struct hw_json *j, const char *list)
{
	hw_json_arr(j);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		hw_json_strf(j, "%.*s", (int)n, p);
		p += n + (c != NULL);
	}
	hw_json_arr_end(j);
}

int hw_an_event_json(const struct hw_an_event *e, const char *svg, char *buf, size_t size)
{
	if (!size)
		return 0;
	struct hw_json j;
	hw_json_init(&j, buf, size);
	hw_json_obj(&j);
	hw_json_key(&j, "event");
	hw_json_str(&j, e->alertname);
	hw_json_key(&j, "state");
	hw_json_str(&j, e->resolved ? "resolved" : "firing");
	if (e->update) { /* the firing alert of this id again, with new numbers: not another raise */
		hw_json_key(&j, "update");
		hw_json_bool(&j, 1);
	}
	hw_json_key(&j, "id");
	hw_json_u64(&j, e->id);
	if (e->incident) {
		hw_json_key(&j, "incident");
		hw_json_u64(&j, e->incident);
	}
	hw_json_key(&j, "severity");
	hw_json_str(&j, e->severity);
	hw_json_key(&j, "start_ns");
	hw_json_u64(&j, e->start_ns);
	if (e->resolved) {
		hw_json_key(&j, "end_ns");
		hw_json_u64(&j, e->end_ns);
	}
	hw_json_key(&j, "node_id");
	hw_json_u64(&j, e->node_id);
	if (e->node[0]) {
		hw_json_key(&j, "node");
		hw_json_str(&j, e->node);
	}
	if (e->port != UINT32_MAX) {
		hw_json_key(&j, "port");
		hw_json_u64(&j, e->port);
	}
	if (e->port_name[0]) {
		hw_json_key(&j, "port_name");
		hw_json_str(&j, e->port_name);
	}
	if (e->queue >= 0) {
		hw_json_key(&j, "queue");
		hw_json_i64(&j, e->queue);
	}
	if (e->hw_id >= 0) {
		hw_json_key(&j, "hw_id");
		hw_json_i64(&j, e->hw_id);
	}
	if (e->link[0]) {
		hw_json_key(&j, "link");
		hw_json_str(&j, e->link);
	}
	hw_json_key(&j, "numbers");
	hw_json_obj(&j);
	for (unsigned i = 0; i < e->n_numbers; i++) {
		hw_json_key(&j, e->numbers[i].name);
		hw_json_numf(&j, "%.17g", e->numbers[i].value);
	}
	hw_json_obj_end(&j);
	hw_json_key(&j, "flows");
	hw_json_arr(&j);
	for (unsigned i = 0; i < e->n_flows; i++)
		hw_json_strf(&j, "%016" PRIx64, e->flows[i]);
	hw_json_arr_end(&j);
	if (e->detail[0]) {
		hw_json_key(&j, "detail");
		hw_json_str(&j, e->detail);
	}
	if (e->follows_id) { /* the root whose aftermath this root's queue was (analyzer.h) */
		hw_json_key(&j, "follows");
		hw_json_obj(&j);
		hw_json_key(&j, "event");
		hw_json_str(&j, hw_an_kind_name(e->follows_kind));
		hw_json_key(&j, "id");
		hw_json_u64(&j, e->follows_id);
		hw_json_key(&j, "queue");
		hw_json_str(&j, e->follows);
		hw_json_obj_end(&j);
	}
	if (e->attributed) {
		hw_json_key(&j, "jobs");
		hw_json_obj(&j);
		hw_json_key(&j, "senders");
		json_list(&j, e->sender_jobs);
		hw_json_key(&j, "receivers");
		json_list(&j, e->receiver_jobs);
		hw_json_key(&j, "unattributed_flows");
		hw_json_u64(&j, e->unattributed_flows);
		hw_json_obj_end(&j);
	}
	if (svg && svg[0]) {
		hw_json_key(&j, "svg");
		hw_json_str(&j, svg);
	}
	hw_json_obj_end(&j);
	return (int)j.len;
}
