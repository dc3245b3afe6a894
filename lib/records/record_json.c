/* JSON lines writer for per-hop records (docs/records.md), generated from HW_RECORD_FIELDS (record.h): keys in
 * the list's JSON order, each omitted when its valid bits are clear; values are integers or generated names, so
 * nothing needs escaping.  The list expands into straight-line code (no table walk): this is the hot path. */
#include <arpa/inet.h>
#include <string.h>

#include "hopwatch/record_json.h"

const char *hw_ip_text(const uint8_t ip[16], char *buf)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (!memcmp(ip, v4mapped, 12))
		inet_ntop(AF_INET, ip + 12, buf, 46);
	else
		inet_ntop(AF_INET6, ip, buf, 46);
	return buf;
}

static inline char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline char *put_quoted(char *p, const char *s)
{
	*p++ = '"';
	p = put_mem(p, s, strlen(s));
	*p++ = '"';
	return p;
}

/* Each key as ,"name": (the first key's comma becomes the opening brace), then its value by kind. */
#define KEY(name) p = put_mem(p, ",\"" #name "\":", sizeof(",\"" #name "\":") - 1)
#define J_UINT(name) KEY(name), p = put_u64(p, r->name)
#define J_FORMAT(name) KEY(name), p = put_quoted(p, hw_format_name(r->name))
#define J_INTVER(name)                                                                                                 \
	if (hw_int_version_name(r->name))                                                                              \
	KEY(name), p = put_quoted(p, hw_int_version_name(r->name))
#define J_IP(name) KEY(name), p = put_quoted(p, hw_ip_text(r->name, ip))
#define J_HEX(name)                                                                                                    \
	KEY(name);                                                                                                     \
	*p++ = '"';                                                                                                    \
	for (int i = 60; i >= 0; i -= 4)                                                                               \
		*p++ = "0123456789abcdef"[(r->name >> i) & 15];                                                        \
	*p++ = '"'
#define J_FLAGS(name)                                                                                                  \
	KEY(name);                                                                                                     \
	*p++ = '[';                                                                                                    \
	for (unsigned bit = 1, first = 1; bit < 256; bit <<= 1) { /* every named bit (record_names.c) */               \
		const char *flag_name = hw_report_flag_name(bit);                                                      \
		if (!(r->name & bit) || !flag_name)                                                                    \
			continue;                                                                                      \
		if (!first)                                                                                            \
			*p++ = ',';                                                                                    \
		first = 0;                                                                                             \
		p = put_quoted(p, flag_name);                                                                          \
	}                                                                                                              \
	*p++ = ']'
#define J_VALID(name) (void)0 /* not a key: the keys present say it */

/* JSON place `at`: the row whose jpos it is writes itself, every other row folds away at compile time. */
#define FIELD_AT(at, name, type, le, valid, ch, kind, jpos)                                                            \
	if ((jpos) == (at) && (!(valid) || (v & (valid)))) {                                                           \
		J_##kind(name);                                                                                        \
	}
#define AT(k) HW_RECORD_FIELDS(FIELD_AT, k)

/* The key at place 0 must always be written: its comma becomes the opening brace. */
#define WRITES_UINT 1
#define WRITES_FLAGS 1
#define WRITES_FORMAT 1
#define WRITES_INTVER 0 /* not for HW_INT_NONE */
#define WRITES_IP 1
#define WRITES_HEX 1
#define WRITES_VALID 0
#define FIRST_ALWAYS(a, name, type, le, valid, ch, kind, jpos) +((jpos) == 0 && !(valid) && WRITES_##kind)
_Static_assert(0 HW_RECORD_FIELDS(FIRST_ALWAYS, _) == 1, "the first JSON key must have no valid bits");

size_t hw_record_json(const struct hw_record *r, char *buf)
{
	char *p = buf, ip[46];
	const uint32_t v = r->valid;
	_Static_assert(HW_RECORD_NFIELDS == 34, "one AT() below per JSON place");
	/* clang-format off */
	AT(0) AT(1) AT(2) AT(3) AT(4) AT(5) AT(6) AT(7) AT(8) AT(9) AT(10) AT(11) AT(12) AT(13) AT(14) AT(15) AT(16)
	AT(17) AT(18) AT(19) AT(20) AT(21) AT(22) AT(23) AT(24) AT(25) AT(26) AT(27) AT(28) AT(29) AT(30) AT(31)
	AT(32) AT(33)
	    /* clang-format on */
	    buf[0] = '{'; /* time_ns (always present) wrote the first key's comma */
	*p++ = '}';
	*p++ = '\n';
	*p = 0;
	return (size_t)(p - buf);
}
