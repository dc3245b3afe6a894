/* One option layer for every program: a table of rows (long option, short option, config-file key, type,
 * default, help, field) from which the getopt table, --help, the JSON config loader and checks come. */
#ifndef HOPWATCH_OPTIONS_H
#define HOPWATCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum hw_opt_type {
	HW_OPT_END = 0,  /* ends a table */
	HW_OPT_GROUP,    /* a heading in --help ("Output:"); help is the heading */
	HW_OPT_FLAG,     /* no value; sets the bool/int field to 1 (HW_OPTF_NEGATE: to 0); config: true/false */
	HW_OPT_STRING,   /* const char * */
	HW_OPT_UINT,     /* unsigned integer in [lo, hi] stored in a 1/2/4/8-byte field, times scale */
	HW_OPT_DOUBLE,   /* double in [lo, hi] */
	HW_OPT_DURATION, /* seconds as double in [lo, hi]; the text may end in ms, s, m or h */
	HW_OPT_ADDR,     /* const char *, checked against addr (enum hw_opt_addr) */
	HW_OPT_ENUM,     /* one of names[]; the field (int-sized) gets the index */
	HW_OPT_LIST,     /* repeatable: an array field of cap elements and a count field; elements are
	                  * strings (elem HW_OPT_STRING, HW_OPTF_GLOB expands globs), HW_OPT_ADDR or
	                  * HW_OPT_UINT; in a config file an array, or one string alone for a list of
	                  * strings, or null (HW_OPTF_NULLABLE, no min) for none */
	HW_OPT_CUSTOM,   /* parse() turns the text into the field */
	HW_OPT_ALIAS,    /* deprecated spelling of the row named alias_of: one line on stderr, then that row */
};

enum hw_opt_addr {
	HW_ADDR_STREAM = 1, /* unix:PATH or tcp:HOST:PORT */
	HW_ADDR_HOSTPORT,   /* HOST:PORT */
	HW_ADDR_URL,        /* http:// or https:// URL */
	HW_ADDR_STREAM_SHM, /* a stream address, or shm:PATH (the collector's and the analyzer's --stream) */
};

enum {
	HW_OPTF_NEGATE = 1,    /* flag: sets 0 (e.g. --no-bare-int), config key still true/false as is */
	HW_OPTF_GLOB = 2,      /* list of strings: each value is a file or a glob(3) pattern */
	HW_OPTF_LO_OPEN = 4,   /* number: the value must be > lo, not >= lo */
	HW_OPTF_NONEMPTY = 8,  /* string: "" is refused */
	HW_OPTF_CONFIG = 16,   /* string: the JSON config file of this table, loaded before the other options */
	HW_OPTF_HIDDEN = 32,   /* not in --help nor in the Markdown table */
	HW_OPTF_NULLABLE = 64, /* config: JSON null sets the string to NULL */
	HW_OPTF_MULTI = 128,   /* list: the arguments that follow the option's value are more values, up to
	                        * the next option (--records a.hwr b.hwr, as a shell glob expands) */
};

struct hw_opt {
	enum hw_opt_type type;
	const char *name;                     /* long option without "--", or NULL (config-file only) */
	int short_name;                       /* 'x', or 0 */
	const char *key;                      /* config-file key ("sinks.json" = key json in object sinks), or NULL */
	const char *metavar;                  /* FILE, N, ... shown in --help */
	const char *def;                      /* default as text: applied by hw_opts_defaults and shown in --help */
	const char *def_note;                 /* default shown in --help when it is not a value (e.g. "lcores - 1") */
	const char *help;                     /* one or more lines ("\n" separated) */
	size_t offset, size;                  /* the field in the program's options struct (HW_OPT_AT) */
	size_t count_offset, count_size, cap; /* HW_OPT_LIST: the count field and the array's capacity */
	enum hw_opt_type elem;                /* HW_OPT_LIST: element type */
	double lo, hi;                        /* numbers: range (checked before scale) */
	unsigned long long scale;             /* HW_OPT_UINT: stored value = given * scale (0 = 1) */
	const char *const *names;             /* HW_OPT_ENUM: NULL-terminated */
	enum hw_opt_addr addr;                /* HW_OPT_ADDR */
	const char *alias_of;                 /* HW_OPT_ALIAS: the new long option */
	const char *what;                     /* what a value is, in messages ("port", "record count") */
	unsigned flags;                       /* HW_OPTF_* */
	unsigned min;                         /* HW_OPT_LIST from config: at least this many */
	/* HW_OPT_CUSTOM: store text into field; 0, or -1 with what was wanted in want ("VALUE/MASK"), or -2
	 * with what is wrong with the value in want ("no such day") */
	int (*parse)(const char *text, void *field, char *want, size_t wantlen);
};

/* The field of a row: HW_OPT_AT(struct opts, member); a list: HW_OPT_LIST_AT(struct opts, array, count). */
#define HW_OPT_AT(T, m) .offset = offsetof(T, m), .size = sizeof(((T *)0)->m)
#define HW_OPT_LIST_AT(T, m, n)                                                                                        \
	.offset = offsetof(T, m), .size = sizeof(((T *)0)->m[0]), .cap = sizeof(((T *)0)->m) / sizeof(((T *)0)->m[0]), \
	.count_offset = offsetof(T, n), .count_size = sizeof(((T *)0)->n)

/* A program or subcommand: its name in messages, its table and the text around the options. */
struct hw_opts_spec {
	const char *prog;     /* "hopwatch-analyzer topology" */
	const char *synopsis; /* the "Usage: ..." lines */
	const char *intro;    /* after the synopsis, or NULL */
	const char *epilog;   /* after the options (exit status ...), or NULL */
	const struct hw_opt *rows;
	int max_args; /* positional arguments accepted (0: none; -1: any number) */
	/* called after the config file (HW_OPTF_CONFIG) was loaded, before the command line */
	void (*after_config)(void *dst);
	/* or NULL: hw_opts_parse sets given[i] for each row i the command line gave (for checks between
	 * options, e.g. "not with --preset") */
	unsigned char *given;
};

/* What hw_opts_parse returns besides 0: help was printed (exit 0), or bad usage (message printed, exit 2). */
enum { HW_OPTS_HELP = -1, HW_OPTS_USAGE = 2 };

/* "PROGRAM VERSION" (the program: prog's first word) to out; --version of every table prints it. */
void hw_opts_version(const char *prog, FILE *out);

/* Apply every row's def to dst.  0, or 2 when a default is wrong (a bug in the table, printed). */
int hw_opts_defaults(const struct hw_opts_spec *s, void *dst);
/* Parse argv[1..argc-1] into dst (defaults are not applied here).  -h/--help prints --help to stdout,
 * --help-markdown the Markdown table, --version the version; each returns HW_OPTS_HELP.  Positional arguments are left
 * in argv[*first_arg..argc-1] (first_arg may be NULL when max_args is 0).  Errors name the option, the value and what
 * is wanted, on stderr, and return HW_OPTS_USAGE. */
int hw_opts_parse(const struct hw_opts_spec *s, void *dst, int argc, char **argv, int *first_arg);
/* Load the rows that have a key from the JSON object in path.  0, or -1 with "PATH: key "K": expected
 * WHAT" (K as written in its object; WHAT names the object of a nested key it does not know) or the JSON
 * syntax error in err. */
int hw_opts_load_file(const struct hw_opts_spec *s, void *dst, const char *path, char *err, size_t errlen);
/* Whether the last hw_opts_parse got the option named name (spec->given must be set). */
bool hw_opts_given(const struct hw_opts_spec *s, const char *name);
/* --help text, and the Markdown table (| option | config key | value | default | meaning |). */
void hw_opts_help(const struct hw_opts_spec *s, FILE *out);
void hw_opts_markdown(const struct hw_opts_spec *s, FILE *out);
/* Free the strings the config file and glob expansion gave (process-wide; call at exit, or not). */
void hw_opts_free_strings(void);

#endif
