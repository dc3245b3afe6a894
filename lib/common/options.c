/* The option layer of options.h: one table gives getopt_long's table, the checks and their messages,
 * --help, the Markdown option table and the JSON config-file loader (jansson). */
#include "hopwatch_version.h"
#include "options.h"
#include "redact.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings that outlive argv or the JSON document ------------------------------------------- */

static char **owned;
static size_t n_owned, cap_owned;

static const char *keep(const char *s)
{
	char *c = strdup(s);
	if (!c)
		return NULL;
	if (n_owned == cap_owned) {
		size_t cap = cap_owned ? cap_owned * 2 : 16;
		char **v = realloc(owned, cap * sizeof(*v));
		if (!v) {
			free(c);
			return NULL;
		}
		owned = v;
		cap_owned = cap;
	}
	owned[n_owned++] = c;
	return c;
}

void hw_opts_free_strings(void)
{
	for (size_t i = 0; i < n_owned; i++)
		free(owned[i]);
	free(owned);
	owned = NULL;
	n_owned = cap_owned = 0;
}

/* ---- fields ---------------------------------------------------------------------------------------- */

static void store_u(void *p, size_t size, unsigned long long v)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = (uint64_t)v; break;
	}
}

static unsigned long long load_u(const void *p, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

static void *field(const struct hw_opt *r, void *dst)
{
	return (char *)dst + r->offset;
}

/* ---- what a value must be, in messages -------------------------------------------------------- */

static void range_text(const struct hw_opt *r, const char *unit, char *buf, size_t len)
{
	if (r->hi >= 1e300 && r->lo == 0 && (r->flags & HW_OPTF_LO_OPEN))
		snprintf(buf, len, "a positive number%s", unit);
	else if (r->hi >= 1e300)
		snprintf(buf, len, "a number%s %s %g", unit, r->flags & HW_OPTF_LO_OPEN ? ">" : ">=", r->lo);
	else if (r->flags & HW_OPTF_LO_OPEN)
		snprintf(buf, len, "a number%s > %g and <= %g", unit, r->lo, r->hi);
	else
		snprintf(buf, len, "a number%s from %g to %g", unit, r->lo, r->hi);
}

static void names_text(const char *const *names, char *buf, size_t len)
{
	size_t o = 0;
	for (int i = 0; names[i] && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"", !i ? "" : names[i + 1] ? ", " : " or ", names[i]);
}

static void want_text(const struct hw_opt *r, enum hw_opt_type t, char *buf, size_t len)
{
	switch (t) {
	case HW_OPT_UINT: snprintf(buf, len, "an integer from %.0f to %.0f", r->lo, r->hi); break;
	case HW_OPT_DOUBLE: range_text(r, "", buf, len); break;
	case HW_OPT_DURATION: range_text(r, " of seconds", buf, len); break;
	case HW_OPT_ADDR:
		snprintf(buf, len, "%s",
		         r->addr == HW_ADDR_STREAM       ? "unix:PATH or tcp:HOST:PORT (port 1-65535)"
		         : r->addr == HW_ADDR_STREAM_SHM ? "unix:PATH, tcp:HOST:PORT (port 1-65535) or shm:PATH"
		         : r->addr == HW_ADDR_HOSTPORT   ? "HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:9464"
		                                       : "an HTTP URL, e.g. http://127.0.0.1:8123/?database=hopwatch");
		break;
	case HW_OPT_ENUM: names_text(r->names, buf, len); break;
	case HW_OPT_FLAG: snprintf(buf, len, "true or false"); break;
	case HW_OPT_STRING:
		snprintf(buf, len, "%s%s", r->flags & HW_OPTF_NONEMPTY ? "a non-empty string" : "a string",
		         r->flags & HW_OPTF_NULLABLE ? " or null" : "");
		break;
	default: snprintf(buf, len, "%s", r->what ? r->what : "a valid value"); break;
	}
}

/* ---- one value ------------------------------------------------------------------------------------ */

static int parse_double(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || isnan(*v) ? -1 : 0;
}

static int in_range(const struct hw_opt *r, double v)
{
	return (r->flags & HW_OPTF_LO_OPEN ? v > r->lo : v >= r->lo) && v <= r->hi;
}

static int parse_duration(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || isnan(*v))
		return -1;
	static const struct {
		const char *suffix;
		double mul;
	} units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"m", 60}, {"h", 3600}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			*v *= units[i].mul;
			return 0;
		}
	return -1;
}

/* The port after the last ':' of s: 1..65535 in decimal, and nothing after it. */
static int port_ok(const char *s)
{
	const char *c = strrchr(s, ':');
	if (!c || !c[1])
		return 0;
	char *end;
	errno = 0;
	unsigned long p = strtoul(c + 1, &end, 10);
	return !errno && *end == 0 && c[1] >= '0' && c[1] <= '9' && p >= 1 && p <= 65535;
}

static int addr_ok(enum hw_opt_addr a, const char *s)
{
	switch (a) {
	case HW_ADDR_STREAM_SHM:
		if (!strncmp(s, "shm:", 4))
			return s[4] != 0;
		/* fall through */
	case HW_ADDR_STREAM: return !strncmp(s, "unix:", 5) ? s[5] != 0 : !strncmp(s, "tcp:", 4) && port_ok(s + 4);
	case HW_ADDR_HOSTPORT: return port_ok(s);
	case HW_ADDR_URL: return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
	}
	return 0;
}

/* Text (command line, or a config string) into a field of type t.  0, or -1 with want filled. */
static int set_text(const struct hw_opt *r, enum hw_opt_type t, const char *text, void *p, char *want, size_t wlen)
{
	double d;
	switch (t) {
	case HW_OPT_STRING:
		if ((r->flags & HW_OPTF_NONEMPTY) && !*text)
			break;
		*(const char **)p = text;
		return 0;
	case HW_OPT_ADDR:
		if (!addr_ok(r->addr, text))
			break;
		*(const char **)p = text;
		return 0;
	case HW_OPT_UINT: {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(text, &end, 0);
		if (errno || end == text || *end || text[0] == '-' || !in_range(r, (double)v))
			break;
		store_u(p, r->size, v * (r->scale ? r->scale : 1));
		return 0;
	}
	case HW_OPT_DOUBLE:
		if (parse_double(text, &d) || !in_range(r, d))
			break;
		*(double *)p = d;
		return 0;
	case HW_OPT_DURATION:
		if (parse_duration(text, &d) || !in_range(r, d))
			break;
		*(double *)p = d;
		return 0;
	case HW_OPT_ENUM:
		for (int i = 0; r->names[i]; i++)
			if (!strcmp(r->names[i], text)) {
				store_u(p, r->size, (unsigned long long)i);
				return 0;
			}
		break;
	case HW_OPT_CUSTOM: return r->parse(text, p, want, wlen);
	default: break;
	}
	want_text(r, t, want, wlen);
	return -1;
}

/* Append one list element (a glob may give several).  0, or -1 with want filled. */
static int list_add(const struct hw_opt *r, void *dst, const char *text, char *want, size_t wlen)
{
	void *cnt = (char *)dst + r->count_offset;
	unsigned long long n = load_u(cnt, r->count_size);
	glob_t g = {0};
	const char *one[1] = {text};
	const char *const *vals = one;
	size_t nv = 1;
	if ((r->flags & HW_OPTF_GLOB) && strpbrk(text, "*?[")) {
		if (glob(text, 0, NULL, &g) || !g.gl_pathc) {
			globfree(&g);
			snprintf(want, wlen, "a file or a pattern that matches files");
			return -1;
		}
		vals = (const char *const *)g.gl_pathv;
		nv = g.gl_pathc;
	}
	int rc = 0;
	for (size_t i = 0; i < nv && !rc; i++) {
		if (n >= r->cap) {
			snprintf(want, wlen, "accepted: at most %zu %ss", r->cap, r->what ? r->what : "value");
			rc = -1;
			break;
		}
		void *p = (char *)field(r, dst) + n * r->size;
		const char *v = vals == one ? vals[i] : keep(vals[i]);
		if (r->elem == HW_OPT_STRING)
			rc = set_text(r, HW_OPT_STRING, v, p, want, wlen);
		else
			rc = set_text(r, r->elem, v, p, want, wlen);
		if (!rc)
			n++;
	}
	store_u(cnt, r->count_size, n);
	globfree(&g);
	return rc;
}

/* ---- the table -------------------------------------------------------------------------------------- */

static const struct hw_opt *find_name(const struct hw_opts_spec *s, const char *name)
{
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		if (r->name && r->type != HW_OPT_ALIAS && !strcmp(r->name, name))
			return r;
	return NULL;
}

static const struct hw_opt *resolve(const struct hw_opts_spec *s, const struct hw_opt *r)
{
	if (r->type != HW_OPT_ALIAS)
		return r;
	fprintf(stderr, "%s: --%s is deprecated, use --%s\n", s->prog, r->name, r->alias_of);
	return find_name(s, r->alias_of);
}

int hw_opts_defaults(const struct hw_opts_spec *s, void *dst)
{
	char want[256];
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++) {
		if (!r->def)
			continue;
		if (r->type == HW_OPT_LIST) /* the default replaces what was there */
			store_u((char *)dst + r->count_offset, r->count_size, 0);
		int rc = r->type == HW_OPT_LIST   ? list_add(r, dst, r->def, want, sizeof(want))
		         : r->type == HW_OPT_FLAG ? (store_u(field(r, dst), r->size, !strcmp(r->def, "true")), 0)
		                                  : set_text(r, r->type, r->def, field(r, dst), want, sizeof(want));
		if (rc) {
			fprintf(stderr, "%s: built-in default of --%s '%s' is not %s\n", s->prog,
			        r->name ? r->name : r->key, r->def, want);
			return HW_OPTS_USAGE;
		}
	}
	return 0;
}

/* ---- help and Markdown ---------------------------------------------------------------------------- */

static void opt_text(const struct hw_opt *r, char *buf, size_t len)
{
	size_t o = 0;
	if (r->short_name)
		o += (size_t)snprintf(buf, len, "-%c, ", r->short_name);
	snprintf(buf + o, len - o, "--%s%s%s", r->name, r->type == HW_OPT_FLAG ? "" : " ",
	         r->type == HW_OPT_FLAG ? ""
	         : r->metavar           ? r->metavar
	                                : "VALUE");
}

static int shown(const struct hw_opt *r)
{
	return r->name && r->type != HW_OPT_ALIAS && r->type != HW_OPT_GROUP && !(r->flags & HW_OPTF_HIDDEN);
}

void hw_opts_help(const struct hw_opts_spec *s, FILE *out)
{
	enum { MAXW = 24 };
	char o[128];
	int w = 10; /* "-h, --help" */
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		if (shown(r)) {
			opt_text(r, o, sizeof(o));
			if ((int)strlen(o) > w && strlen(o) <= MAXW)
				w = (int)strlen(o);
		}
	fprintf(out, "%s", s->synopsis);
	if (s->intro)
		fprintf(out, "\n%s", s->intro);
	if (s->rows[0].type != HW_OPT_GROUP)
		fprintf(out, "\n");
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++) {
		if (r->type == HW_OPT_GROUP) {
			fprintf(out, "\n%s\n", r->help);
			continue;
		}
		if (!shown(r))
			continue;
		opt_text(r, o, sizeof(o));
		if ((int)strlen(o) > w)
			fprintf(out, "  %s\n  %-*s  ", o, w, "");
		else
			fprintf(out, "  %-*s  ", w, o);
		size_t col = 0; /* of the help text's last line */
		for (const char *h = r->help; *h;) {
			const char *nl = strchr(h, '\n');
			size_t n = nl ? (size_t)(nl - h) : strlen(h);
			fprintf(out, "%.*s", (int)n, h);
			col = n;
			if (!nl)
				break;
			fprintf(out, "\n  %-*s  ", w, "");
			h = nl + 1;
		}
		const char *def = r->def_note ? r->def_note : r->type == HW_OPT_FLAG ? NULL : r->def;
		char tail[256] = "";
		if (def || r->type == HW_OPT_LIST)
			snprintf(tail, sizeof(tail), "%s%s%s%s", def ? "(default " : "", def ? def : "", def ? ")" : "",
			         r->type == HW_OPT_LIST ? (def ? "; repeatable" : "repeatable") : "");
		if (*tail && col + strlen(tail) + (size_t)w + 5 > 110)
			fprintf(out, "\n  %-*s  %s\n", w, "", tail);
		else
			fprintf(out, "%s%s\n", *tail ? (r->type == HW_OPT_LIST && !def ? "; " : " ") : "", tail);
	}
	fprintf(out, "\n  %-*s  this text\n", w, "-h, --help");
	int any = 0;
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		if (r->type == HW_OPT_ALIAS) {
			fprintf(out, "%s--%s (use --%s)",
			        any ? ", " : "Deprecated spellings, still accepted: ", r->name, r->alias_of);
			any = 1;
		}
	if (any)
		fprintf(out, "\n");
	if (s->epilog)
		fprintf(out, "\n%s", s->epilog);
}

/* Markdown cell text: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *out, const char *t)
{
	for (; t && *t; t++) {
		if (*t == '|')
			fputs("\\|", out);
		else if (*t == '\n')
			fputc(' ', out);
		else
			fputc(*t, out);
	}
}

static void value_text(const struct hw_opt *r, char *buf, size_t len)
{
	enum hw_opt_type t = r->type == HW_OPT_LIST ? r->elem : r->type;
	switch (t) {
	case HW_OPT_FLAG: snprintf(buf, len, "flag"); break;
	case HW_OPT_UINT: snprintf(buf, len, "integer %.0f to %.0f", r->lo, r->hi); break;
	case HW_OPT_DOUBLE:
	case HW_OPT_DURATION: range_text(r, t == HW_OPT_DURATION ? " of seconds" : "", buf, len); break;
	case HW_OPT_ENUM:
	case HW_OPT_ADDR: want_text(r, t, buf, len); break;
	case HW_OPT_CUSTOM: snprintf(buf, len, "%s", r->what ? r->what : "text"); break;
	default: snprintf(buf, len, "%s", (r->flags & HW_OPTF_GLOB) ? "file or glob" : "text"); break;
	}
	if (r->type == HW_OPT_LIST) {
		size_t o = strlen(buf);
		snprintf(buf + o, len - o, ", repeatable");
	}
}

void hw_opts_markdown(const struct hw_opts_spec *s, FILE *out)
{
	char o[128], v[256];
	fprintf(out, "| option | config key | value | default | meaning |\n|---|---|---|---|---|\n");
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++) {
		if (r->type == HW_OPT_GROUP || r->type == HW_OPT_ALIAS || (r->flags & HW_OPTF_HIDDEN))
			continue;
		fputs("| ", out);
		if (r->name) {
			opt_text(r, o, sizeof(o));
			fputc('`', out);
			md_cell(out, o);
			fputc('`', out);
		}
		fputs(" | ", out);
		if (r->key)
			fprintf(out, "`%s`", r->key);
		value_text(r, v, sizeof(v));
		fputs(" | ", out);
		md_cell(out, v);
		fputs(" | ", out);
		md_cell(out, r->def_note ? r->def_note : r->type == HW_OPT_FLAG ? NULL : r->def);
		fputs(" | ", out);
		md_cell(out, r->help);
		fputs(" |\n", out);
	}
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		if (r->type == HW_OPT_ALIAS)
			fprintf(out, "| `--%s` | | deprecated | | the old spelling of `--%s` |\n", r->name,
			        r->alias_of);
}

/* ---- the command line ------------------------------------------------------------------------------ */

enum { O_VERSION = 253, O_HELP = 254, O_MARKDOWN = 255, O_ROW = 256 }; /* above every short option, below the rows */

/* getopt_long's table and short-option string from the rows. */
static struct option *long_table(const struct hw_opts_spec *s, char *shorts, size_t slen)
{
	size_t n = 0, k = 0, so = 0;
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		n++;
	struct option *lo = calloc(n + 4, sizeof(*lo));
	if (!lo)
		return NULL;
	so += (size_t)snprintf(shorts, slen, ":h");
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++) {
		if (!r->name)
			continue;
		const struct hw_opt *t = r->type == HW_OPT_ALIAS ? find_name(s, r->alias_of) : r;
		int arg = t && t->type == HW_OPT_FLAG ? no_argument : required_argument;
		lo[k++] = (struct option){r->name, arg, NULL, O_ROW + (int)(r - s->rows)};
		if (r->short_name && so + 3 < slen) {
			shorts[so++] = (char)r->short_name;
			if (arg == required_argument)
				shorts[so++] = ':';
			shorts[so] = 0;
		}
	}
	lo[k++] = (struct option){"help", no_argument, NULL, O_HELP};
	lo[k++] = (struct option){"help-markdown", no_argument, NULL, O_MARKDOWN};
	lo[k++] = (struct option){"version", no_argument, NULL, O_VERSION};
	return lo;
}

static const struct hw_opt *short_row(const struct hw_opts_spec *s, int c)
{
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		if (r->short_name == c)
			return r;
	return NULL;
}

/* The option as the user wrote it, for messages (argv[optind - 1] without "=value"). */
static void spelled(char **argv, int idx, char *buf, size_t len)
{
	const char *a = idx > 0 ? argv[idx] : "?";
	size_t n = strcspn(a, "=");
	snprintf(buf, len, "%.*s", (int)n, a);
}

static int usage_err(const struct hw_opts_spec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_err(const struct hw_opts_spec *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", s->prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see %s --help)\n", s->prog);
	va_end(ap);
	return HW_OPTS_USAGE;
}

static int set_option(const struct hw_opts_spec *s, const struct hw_opt *r, void *dst, const char *text,
                      unsigned char *seen)
{
	char want[256];
	if (r->type == HW_OPT_FLAG) {
		store_u(field(r, dst), r->size, r->flags & HW_OPTF_NEGATE ? 0 : 1);
		return 0;
	}
	int rc;
	if (r->type == HW_OPT_LIST) {
		size_t i = (size_t)(r - s->rows);
		if (!seen[i]) /* the command line replaces a list the defaults or the config file gave */
			store_u((char *)dst + r->count_offset, r->count_size, 0);
		seen[i] = 1;
		rc = list_add(r, dst, text, want, sizeof(want));
	} else {
		rc = set_text(r, r->type, text, field(r, dst), want, sizeof(want));
	}
	if (rc) {
		char o[64], shown[1024];
		snprintf(o, sizeof(o), "--%s", r->name);
		if (strstr(text, "://")) /* a URL's password is never printed, whatever the option's type */
			text = hw_http_redact(text, shown, sizeof(shown));
		return usage_err(s,
		                 rc == -2                        ? "%s: '%s': %s"
		                 : strncmp(want, "accepted:", 9) ? "%s: '%s' is not %s"
		                                                 : "%s: '%s' not %s",
		                 o, text, want);
	}
	return 0;
}

static int load_config(const struct hw_opts_spec *s, void *dst, const char *path)
{
	char err[1024];
	if (hw_opts_load_file(s, dst, path, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", s->prog, err);
		return HW_OPTS_USAGE;
	}
	return 0;
}

/* The config file first (the table's HW_OPTF_CONFIG row), so that the command line overrides it. */
static int config_first(const struct hw_opts_spec *s, void *dst, int argc, char **argv, const char *shorts,
                        const struct option *lo)
{
	const struct hw_opt *cfg_row = NULL;
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		if (r->flags & HW_OPTF_CONFIG)
			cfg_row = r;
	if (!cfg_row)
		return 0;
	const char *path = NULL;
	int help = 0, c; /* --help does not need the file */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c >= O_ROW && s->rows + (c - O_ROW) == cfg_row)
			path = optarg;
		help |= c == 'h' || c == O_HELP || c == O_MARKDOWN || c == O_VERSION;
	}
	int rc = path && !help ? load_config(s, dst, path) : 0;
	if (!rc && s->after_config)
		s->after_config(dst);
	return rc;
}

int hw_opts_parse(const struct hw_opts_spec *s, void *dst, int argc, char **argv, int *first_arg)
{
	char shorts[128], o[128];
	struct option *lo = long_table(s, shorts, sizeof(shorts));
	size_t nrows = 0;
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		nrows++;
	unsigned char *seen = calloc(nrows + 1, 1);
	if (!lo || !seen) {
		free(lo);
		free(seen);
		fprintf(stderr, "%s: out of memory\n", s->prog);
		return HW_OPTS_USAGE;
	}
	int rc, c;
	opterr = 0;
	if ((rc = config_first(s, dst, argc, argv, shorts, lo)))
		goto out;
	if (s->given)
		memset(s->given, 0, nrows);
	int multi = 0; /* a row takes the arguments after its value: getopt then hands them over in order */
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END; r++)
		multi |= (r->flags & HW_OPTF_MULTI) != 0;
	const char *opts = shorts;
	char in_order[136];
	if (multi) {
		snprintf(in_order, sizeof(in_order), "-%s", shorts);
		opts = in_order;
	}
	const struct hw_opt *last = NULL; /* the HW_OPTF_MULTI row just given, if any */
	optind = 0;
	while (!rc && (c = getopt_long(argc, argv, opts, lo, NULL)) != -1) {
		const struct hw_opt *r = NULL;
		if (c == 1 && multi) { /* an argument that is not an option (only in this mode) */
			if (!last) {
				rc = usage_err(s, "unexpected argument '%s'", optarg);
				break;
			}
			rc = set_option(s, last, dst, optarg, seen);
			continue;
		}
		last = NULL;
		if (c == 'h' || c == O_HELP) {
			hw_opts_help(s, stdout);
			rc = HW_OPTS_HELP;
		} else if (c == O_MARKDOWN) {
			hw_opts_markdown(s, stdout);
			rc = HW_OPTS_HELP;
		} else if (c == O_VERSION) {
			hw_opts_version(s->prog, stdout);
			rc = HW_OPTS_HELP;
		} else if (c == '?') {
			spelled(argv, optind - 1, o, sizeof(o));
			if (optopt)
				snprintf(o, sizeof(o), "-%c", optopt);
			rc = usage_err(s, "unknown option '%s'", o);
		} else if (c == ':') {
			spelled(argv, optind - 1, o, sizeof(o));
			if (optopt && optopt < O_ROW)
				snprintf(o, sizeof(o), "-%c", optopt);
			rc = usage_err(s, "%s needs a value", o);
		} else if (c >= O_ROW) {
			r = s->rows + (c - O_ROW);
		} else {
			r = short_row(s, c);
		}
		if (r && (r = resolve(s, r)) && !(rc = set_option(s, r, dst, optarg, seen))) {
			if (s->given)
				s->given[r - s->rows] = 1;
			if (r->flags & HW_OPTF_MULTI)
				last = r;
		}
	}
	if (!rc) {
		int nargs = argc - optind;
		if (nargs > 0 && s->max_args >= 0 && nargs > s->max_args)
			rc = usage_err(s, "unexpected argument '%s'", argv[optind + s->max_args]);
		else if (first_arg)
			*first_arg = optind;
	}
out:
	free(lo);
	free(seen);
	return rc;
}

bool hw_opts_given(const struct hw_opts_spec *s, const char *name)
{
	const struct hw_opt *r = find_name(s, name);
	return r && s->given && s->given[r - s->rows];
}

/* ---- the JSON config file --------------------------------------------------------------------------- */

struct cfg_ctx {
	const struct hw_opts_spec *s;
	void *dst;
	const char *path;
	char *err;
	size_t errlen;
};

/* Names the key as written in its object ("rotate_mb", not "sinks.rotate_mb"). */
static int bad(struct cfg_ctx *x, const char *key, const char *want)
{
	const char *leaf = strrchr(key, '.');
	snprintf(x->err, x->errlen, "%s: key \"%s\": expected %s", x->path, leaf ? leaf + 1 : key, want);
	return -1;
}

/* One JSON value into a field of type t. */
static int set_json(struct cfg_ctx *x, const struct hw_opt *r, enum hw_opt_type t, json_t *v, void *p, const char *key)
{
	char want[256];
	want_text(r, t, want, sizeof(want));
	switch (t) {
	case HW_OPT_FLAG:
		if (!json_is_boolean(v))
			return bad(x, key, want);
		store_u(p, r->size, json_is_true(v));
		return 0;
	case HW_OPT_UINT: {
		json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;
		if (i < 0 || !in_range(r, (double)i))
			return bad(x, key, want);
		store_u(p, r->size, (unsigned long long)i * (r->scale ? r->scale : 1));
		return 0;
	}
	case HW_OPT_DOUBLE:
	case HW_OPT_DURATION:
		if (!json_is_number(v) || !in_range(r, json_number_value(v)))
			return bad(x, key, want);
		*(double *)p = json_number_value(v);
		return 0;
	case HW_OPT_STRING:
	case HW_OPT_ADDR:
	case HW_OPT_ENUM:
	case HW_OPT_CUSTOM:
		if (json_is_null(v) && (r->flags & HW_OPTF_NULLABLE)) {
			*(const char **)p = NULL;
			return 0;
		}
		if (!json_is_string(v)) /* the JSON type first: a string (or null), whatever its form */
			return bad(x, key, r->flags & HW_OPTF_NULLABLE ? "a string or null" : "a string");
		if (set_text(r, t, keep(json_string_value(v)), p, want, sizeof(want)))
			return bad(x, key, want);
		return 0;
	default: return bad(x, key, want);
	}
}

static int set_json_row(struct cfg_ctx *x, const struct hw_opt *r, json_t *v)
{
	if (r->type != HW_OPT_LIST)
		return set_json(x, r, r->type, v, field(r, x->dst), r->key);
	char want[256];
	want_text(r, r->elem, want, sizeof(want));
	char arr[320];
	snprintf(arr, sizeof(arr), "%san array of at most %zu %ss (%s)%s", r->elem != HW_OPT_UINT ? "a string or " : "",
	         r->cap, r->what ? r->what : "value", want,
	         (r->flags & HW_OPTF_NULLABLE) && !r->min ? ", or null" : "");
	if (json_is_null(v) && (r->flags & HW_OPTF_NULLABLE) && !r->min) { /* none */
		store_u((char *)x->dst + r->count_offset, r->count_size, 0);
		return 0;
	}
	if (json_is_string(v) && r->elem != HW_OPT_UINT) { /* a list of strings: one may stand alone */
		if (set_json(x, r, r->elem, v, field(r, x->dst), r->key))
			return -1;
		store_u((char *)x->dst + r->count_offset, r->count_size, 1);
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) > r->cap)
		return bad(x, r->key, arr);
	if (json_array_size(v) < r->min) {
		snprintf(arr, sizeof(arr), "at least one %s", r->what ? r->what : "value");
		return bad(x, r->key, arr);
	}
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e)
	{
		if (json_is_null(e)) /* HW_OPTF_NULLABLE is for the whole list, not for one element */
			return bad(x, r->key, arr);
		if (set_json(x, r, r->elem, e, (char *)field(r, x->dst) + i * r->size, r->key))
			return -1;
	}
	store_u((char *)x->dst + r->count_offset, r->count_size, json_array_size(v));
	return 0;
}

/* The keys at one level (prefix "" or "sinks."), for the unknown-key message. */
static void keys_text(const struct hw_opts_spec *s, const char *prefix, char *buf, size_t len)
{
	size_t o = 0, pl = strlen(prefix);
	buf[0] = 0;
	for (const struct hw_opt *r = s->rows; r->type != HW_OPT_END && o < len; r++) {
		if (!r->key || strncmp(r->key, prefix, pl))
			continue;
		const char *k = r->key + pl;
		size_t kl = strcspn(k, ".");
		int dup = 0; /* a nested object is listed once */
		for (const struct hw_opt *q = s->rows; q < r; q++)
			if (q->key && !strncmp(q->key, prefix, pl) && !strncmp(q->key + pl, k, kl) &&
			    (q->key[pl + kl] == '.' || !q->key[pl + kl]))
				dup = 1;
		if (!dup)
			o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? ", " : "", (int)kl, k);
	}
}

static int load_object(struct cfg_ctx *x, json_t *obj, const char *prefix)
{
	const char *k;
	json_t *v;
	size_t pl = strlen(prefix);
	json_object_foreach(obj, k, v)
	{
		char full[256];
		snprintf(full, sizeof(full), "%s%s", prefix, k);
		const struct hw_opt *row = NULL;
		int nested = 0;
		for (const struct hw_opt *r = x->s->rows; r->type != HW_OPT_END; r++) {
			if (!r->key || strncmp(r->key, full, strlen(full)))
				continue;
			if (!r->key[strlen(full)])
				row = r;
			else if (r->key[strlen(full)] == '.')
				nested = 1;
		}
		if (row) {
			if (set_json_row(x, row, v))
				return -1;
		} else if (nested) {
			if (!json_is_object(v))
				return bad(x, full, "an object");
			char sub[260];
			snprintf(sub, sizeof(sub), "%s.", full);
			if (load_object(x, v, sub))
				return -1;
		} else {
			char keys[1024], want[1100];
			keys_text(x->s, prefix, keys, sizeof(keys));
			if (pl)
				snprintf(want, sizeof(want), "one of %s (in \"%.*s\")", keys, (int)pl - 1, prefix);
			else
				snprintf(want, sizeof(want), "a known key: %s", keys);
			return bad(x, full, want);
		}
	}
	return 0;
}

int hw_opts_load_file(const struct hw_opts_spec *s, void *dst, const char *path, char *err, size_t errlen)
{
	struct cfg_ctx x = {s, dst, path, err, errlen};
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (je.line < 0) /* "unable to open PATH: ..." */
			snprintf(err, errlen, "%s", je.text);
		else
			snprintf(err, errlen, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
		return -1;
	}
	int rc = -1;
	if (!json_is_object(root))
		snprintf(err, errlen, "%s: expected a JSON object at the top", path);
	else
		rc = load_object(&x, root, "");
	json_decref(root);
	return rc;
}

void hw_opts_version(const char *prog, FILE *out)
{
	size_t n = strcspn(prog, " ");                   /* the program, without a subcommand */
	if (strcmp(HW_VERSION, HW_PROJECT_VERSION) == 0) /* built outside a git checkout */
		fprintf(out, "%.*s %s\n", (int)n, prog, HW_PROJECT_VERSION);
	else
		fprintf(out, "%.*s %s (git %s)\n", (int)n, prog, HW_PROJECT_VERSION, HW_VERSION);
}
