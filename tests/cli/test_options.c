/* The option layer (lib/common/options.c) on a small table: defaults, every value type, lists and their
 * reset, aliases, several values after one option, the JSON config file, and the generated texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "options.h"

struct t_opts {
	uint16_t n;
	double ratio, wait;
	uint64_t bytes;
	int color;
	bool quiet, labels;
	const char *name, *addr;
	uint32_t ports[4];
	unsigned n_ports;
	const char *files[8];
	int n_files;
};

#define T struct t_opts

static const char *const colors[] = {"red", "green", "blue", NULL};

static const struct hw_opt rows[] = {
    {HW_OPT_GROUP, .help = "Numbers:"},
    {HW_OPT_UINT, "n", .key = "n", .metavar = "N", HW_OPT_AT(T, n), .lo = 1, .hi = 9, .def = "4", .help = "count"},
    {HW_OPT_DOUBLE, "ratio", .key = "sub.ratio", .metavar = "R", HW_OPT_AT(T, ratio), .hi = 1, .def = "0.5",
     .help = "share"},
    {HW_OPT_DURATION, "wait", .metavar = "S", HW_OPT_AT(T, wait), .hi = 3600, .help = "how long"},
    {HW_OPT_UINT, "mb", .metavar = "MIB", HW_OPT_AT(T, bytes), .hi = 1024, .scale = 1 << 20, .def = "1",
     .help = "size"},
    {HW_OPT_GROUP, .help = "Other:"},
    {HW_OPT_ENUM, "color", .key = "sub.color", .metavar = "C", HW_OPT_AT(T, color), .names = colors, .def = "green",
     .help = "a color"},
    {HW_OPT_FLAG, "quiet", 'q', HW_OPT_AT(T, quiet), .help = "say less"},
    {HW_OPT_FLAG, "no-labels", .key = "labels", HW_OPT_AT(T, labels), .flags = HW_OPTF_NEGATE, .def = "true",
     .help = "no labels"},
    {HW_OPT_STRING, "name", .key = "name", .metavar = "S", HW_OPT_AT(T, name), .flags = HW_OPTF_NULLABLE,
     .help = "a name"},
    {HW_OPT_ALIAS, "label", .alias_of = "name"},
    {HW_OPT_ADDR, "addr", .metavar = "A", HW_OPT_AT(T, addr), .addr = HW_ADDR_STREAM, .help = "where"},
    {HW_OPT_LIST, "port", .key = "ports", .metavar = "P", HW_OPT_LIST_AT(T, ports, n_ports), .elem = HW_OPT_UINT,
     .lo = 1, .hi = 65535, .min = 1, .what = "port", .def = "80", .help = "a port"},
    {HW_OPT_LIST, "files", .metavar = "F", HW_OPT_LIST_AT(T, files, n_files), .elem = HW_OPT_STRING,
     .flags = HW_OPTF_MULTI, .what = "file", .help = "files"},
    {HW_OPT_END},
};

static const struct hw_opts_spec spec = {.prog = "t", .synopsis = "usage: t [options]\n", .rows = rows};

/* Parse a NULL-terminated list of arguments (after the program name) over the defaults. */
static int parse(struct t_opts *o, ...)
{
	char *argv[32] = {"t"};
	int argc = 1;
	va_list ap;
	va_start(ap, o);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	memset(o, 0, sizeof(*o));
	assert_int_equal(hw_opts_defaults(&spec, o), 0);
	return hw_opts_parse(&spec, o, argc, argv, NULL);
}

static void defaults_and_types(void **state)
{
	(void)state;
	struct t_opts o;
	assert_int_equal(parse(&o, NULL), 0);
	assert_int_equal(o.n, 4);            /* def "4" */
	assert_true(o.ratio == 0.5);         /* def "0.5" */
	assert_int_equal(o.bytes, 1u << 20); /* def "1" MiB times scale 2^20 = 1048576 */
	assert_int_equal(o.color, 1);        /* "green" is names[1] */
	assert_true(o.labels);               /* def "true" of a negated flag */
	assert_int_equal(o.n_ports, 1);      /* def "80": one element */
	assert_int_equal(o.ports[0], 80);
	assert_int_equal(parse(&o, "--n", "0x9", "--ratio", "0.25", "--wait", "1.5m", "--mb", "3", "--color", "blue",
	                       "-q", "--no-labels", "--name", "x", "--addr", "tcp:h:1", NULL),
	                 0);
	assert_int_equal(o.n, 9); /* base 0: 0x9 = 9 */
	assert_true(o.ratio == 0.25);
	assert_true(o.wait == 90);           /* 1.5 minutes = 90 s */
	assert_int_equal(o.bytes, 3u << 20); /* 3 MiB = 3145728 */
	assert_int_equal(o.color, 2);        /* "blue" is names[2] */
	assert_true(o.quiet);
	assert_false(o.labels);
	assert_string_equal(o.name, "x");
	assert_string_equal(o.addr, "tcp:h:1");
}

static void lists_and_aliases(void **state)
{
	(void)state;
	struct t_opts o;
	/* the command line replaces the default list: 7 and 8, not 80, 7, 8 */
	assert_int_equal(parse(&o, "--port", "7", "--port", "8", NULL), 0);
	assert_int_equal(o.n_ports, 2);
	assert_int_equal(o.ports[0], 7);
	assert_int_equal(o.ports[1], 8);
	/* a 5th port does not fit the 4 slots */
	assert_int_equal(parse(&o, "--port", "1", "--port", "2", "--port", "3", "--port", "4", "--port", "5", NULL), 2);
	/* arguments after --files' value are more files, up to the next option; in the order given */
	assert_int_equal(parse(&o, "--files", "a", "b", "-q", "--files", "c", NULL), 0);
	assert_int_equal(o.n_files, 3);
	assert_string_equal(o.files[0], "a");
	assert_string_equal(o.files[1], "b");
	assert_string_equal(o.files[2], "c");
	assert_true(o.quiet);
	/* a free argument not after --files is refused */
	assert_int_equal(parse(&o, "-q", "stray", NULL), 2);
	/* the deprecated spelling sets the new option's field */
	assert_int_equal(parse(&o, "--label", "y", NULL), 0);
	assert_string_equal(o.name, "y");
}

static void bad_values(void **state)
{
	(void)state;
	struct t_opts o;
	assert_int_equal(parse(&o, "--n", "10", NULL), HW_OPTS_USAGE);       /* above 9 */
	assert_int_equal(parse(&o, "--n", "-1", NULL), HW_OPTS_USAGE);       /* negative */
	assert_int_equal(parse(&o, "--ratio", "1.01", NULL), HW_OPTS_USAGE); /* above 1 */
	assert_int_equal(parse(&o, "--wait", "2h", NULL), HW_OPTS_USAGE);    /* 7200 s > 3600 */
	assert_int_equal(parse(&o, "--wait", "5 s", NULL), HW_OPTS_USAGE);   /* unknown suffix " s" */
	assert_int_equal(parse(&o, "--color", "Red", NULL), HW_OPTS_USAGE);  /* names are exact */
	assert_int_equal(parse(&o, "--addr", "h:1", NULL), HW_OPTS_USAGE);   /* neither unix: nor tcp: */
	assert_int_equal(parse(&o, "--nope", NULL), HW_OPTS_USAGE);
	assert_int_equal(parse(&o, "--n", NULL), HW_OPTS_USAGE); /* missing value */
	assert_int_equal(parse(&o, "--help", NULL), HW_OPTS_HELP);
}

static int load(struct t_opts *o, const char *json, char *err, size_t errlen)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/hwopts-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);
	memset(o, 0, sizeof(*o));
	hw_opts_defaults(&spec, o);
	int rc = hw_opts_load_file(&spec, o, path, err, errlen);
	unlink(path);
	return rc;
}

static void config_file(void **state)
{
	(void)state;
	struct t_opts o;
	char err[512] = "";
	assert_int_equal(load(&o,
	                      "{\"n\": 2, \"sub\": {\"ratio\": 1, \"color\": \"red\"}, \"labels\": false,"
	                      " \"name\": null, \"ports\": [1, 2, 3]}",
	                      err, sizeof(err)),
	                 0);
	assert_int_equal(o.n, 2);
	assert_true(o.ratio == 1);
	assert_int_equal(o.color, 0);
	assert_false(o.labels);
	assert_null(o.name);
	assert_int_equal(o.n_ports, 3);
	assert_int_equal(o.ports[2], 3);
	/* errors: PATH: key "K": expected WHAT */
	assert_int_equal(load(&o, "{\"sub\": {\"size\": 1}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "key \"size\": expected one of ratio, color (in \"sub\")"));
	assert_int_equal(load(&o, "{\"wait\": 1}", err, sizeof(err)), -1); /* a row without a key */
	assert_non_null(strstr(err, "key \"wait\": expected a known key: n, sub, labels, name, ports"));
	assert_int_equal(load(&o, "{\"n\": 10}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "key \"n\": expected an integer from 1 to 9"));
	assert_int_equal(load(&o, "{\"ports\": []}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "key \"ports\": expected at least one port"));
	/* a lone value stands for a one-element list only in lists of strings (lists of URLs: the collector's
	 * sinks.clickhouse, tests/ops/test_clickhouse_sink.c); a number is not a list of ports */
	assert_int_equal(load(&o, "{\"ports\": 5}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "key \"ports\": expected an array of at most"));
	assert_int_equal(load(&o, "{\"sub\": {\"color\": \"pink\"}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected \"red\", \"green\" or \"blue\""));
	hw_opts_free_strings();
}

static void generated_texts(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	hw_opts_markdown(&spec, f);
	fclose(f);
	/* the n row: option and metavar, key, range, default, help */
	assert_non_null(strstr(buf, "\n| `--n N` | `n` | integer 1 to 9 | 4 | count |\n"));
	/* a flag shows no value and no default */
	assert_non_null(strstr(buf, "\n| `-q, --quiet` |  | flag |  | say less |\n"));
	assert_non_null(strstr(buf, "\n| `--label` | | deprecated | | the old spelling of `--name` |\n"));
	free(buf);
	f = open_memstream(&buf, &len);
	hw_opts_help(&spec, f);
	fclose(f);
	/* the widest shown option is "--no-labels" and "-q, --quiet": 11 columns, so help starts at 2 + 11 + 2 */
	assert_non_null(strstr(buf, "\nNumbers:\n  --n N        count (default 4)\n"));
	assert_non_null(strstr(buf, "  --port P     a port (default 80); repeatable\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults_and_types), cmocka_unit_test(lists_and_aliases), cmocka_unit_test(bad_values),
	    cmocka_unit_test(config_file),        cmocka_unit_test(generated_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
