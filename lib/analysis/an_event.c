/* Event names, severities and the event's JSON form (one line of the events file, the webhook body,
 * and the source of Alertmanager labels/annotations). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hopwatch/analyzer.h"

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

/* Append a JSON string (quotes and escapes) at buf+*off. */
static void put_str(char *buf, size_t size, size_t *off, const char *s)
{
	if (*off < size)
		buf[(*off)++] = '"';
	for (; *s && *off + 7 < size; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			buf[(*off)++] = '\\';
			buf[(*off)++] = (char)ch;
		} else if (ch < 0x20) {
			*off += (size_t)snprintf(buf + *off, size - *off, "\\u%04x", ch);
		} else {
			buf[(*off)++] = (char)ch;
		}
	}
	if (*off < size)
		buf[(*off)++] = '"';
}

#define PUT(...)                                                                                                       \
	do {                                                                                                           \
		int w_ = snprintf(buf + off, off < size ? size - off : 0, __VA_ARGS__);                                \
		if (w_ > 0)                                                                                            \
			off += (size_t)w_;                                                                             \
	} while (0)

int hw_an_event_json(const struct hw_an_event *e, const char *svg, char *buf, size_t size)
{
	size_t off = 0;
	if (!size)
		return 0;
	PUT("{\"event\":");
	put_str(buf, size, &off, e->alertname);
	PUT(",\"state\":\"%s\",\"id\":%" PRIu64 ",\"severity\":\"%s\",\"start_ns\":%" PRIu64,
	    e->resolved ? "resolved" : "firing", e->id, e->severity, e->start_ns);
	if (e->resolved)
		PUT(",\"end_ns\":%" PRIu64, e->end_ns);
	PUT(",\"node_id\":%" PRIu32, e->node_id);
	if (e->node[0]) {
		PUT(",\"node\":");
		put_str(buf, size, &off, e->node);
	}
	if (e->port != UINT32_MAX)
		PUT(",\"port\":%" PRIu32, e->port);
	if (e->port_name[0]) {
		PUT(",\"port_name\":");
		put_str(buf, size, &off, e->port_name);
	}
	if (e->queue >= 0)
		PUT(",\"queue\":%d", e->queue);
	if (e->hw_id >= 0)
		PUT(",\"hw_id\":%d", e->hw_id);
	if (e->link[0]) {
		PUT(",\"link\":");
		put_str(buf, size, &off, e->link);
	}
	PUT(",\"numbers\":{");
	for (unsigned i = 0; i < e->n_numbers; i++)
		PUT("%s\"%s\":%.17g", i ? "," : "", e->numbers[i].name, e->numbers[i].value);
	PUT("},\"flows\":[");
	for (unsigned i = 0; i < e->n_flows; i++)
		PUT("%s\"%016" PRIx64 "\"", i ? "," : "", e->flows[i]);
	PUT("]");
	if (e->detail[0]) {
		PUT(",\"detail\":");
		put_str(buf, size, &off, e->detail);
	}
	if (svg && svg[0]) {
		PUT(",\"svg\":");
		put_str(buf, size, &off, svg);
	}
	PUT("}");
	if (off >= size) {
		buf[size - 1] = 0;
		return (int)(size - 1);
	}
	return (int)off;
}
