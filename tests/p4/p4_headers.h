/* A small reader for P4_16 header type declarations: `header NAME { bit<N> field; ... }`.
 * Enough of P4 for the layout test: comments, preprocessor lines, annotations, typedefs, varbit. */
#ifndef HOPWATCH_TESTS_P4_HEADERS_H
#define HOPWATCH_TESTS_P4_HEADERS_H

#include <stddef.h>

#define P4H_NAME_MAX 64
#define P4H_FIELDS_MAX 32
#define P4H_HEADERS_MAX 128
#define P4H_TYPEDEFS_MAX 128

struct p4h_field {
	char name[P4H_NAME_MAX];
	unsigned width; /* bits; for varbit the maximum width */
	int varbit;
};

struct p4h_header {
	char name[P4H_NAME_MAX]; /* the type name as written, e.g. "tr2_group_t" */
	char file[256];          /* where it was declared */
	struct p4h_field fields[P4H_FIELDS_MAX];
	unsigned n_fields;
	int has_varbit;
};

struct p4h_typedef {
	char name[P4H_NAME_MAX];
	unsigned width;
};

struct p4h_set {
	struct p4h_header headers[P4H_HEADERS_MAX];
	unsigned n_headers;
	struct p4h_typedef typedefs[P4H_TYPEDEFS_MAX];
	unsigned n_typedefs;
};

/* Parse P4 source text and add its typedefs and header types to set.  Returns 0, or -1 with a
 * message in err (which names the file and what could not be read). */
int p4h_parse(struct p4h_set *set, const char *text, const char *file, char *err, size_t errlen);

/* Read every *.p4 file in dir and (non-recursively) in dir/include.  Returns the number of files
 * read, or -1 with a message in err. */
int p4h_parse_dir(struct p4h_set *set, const char *dir, char *err, size_t errlen);

const struct p4h_header *p4h_find(const struct p4h_set *set, const char *type_name);

#endif
