/* A small reader for P4_16 header type declarations, used by the P4 <-> C layout test.
 * Tokenises the source, skips what it does not need, and records typedef'd widths and headers. */
#include "p4_headers.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok_kind { TK_END, TK_IDENT, TK_NUMBER, TK_PUNCT };

struct lexer {
	const char *p;
	const char *file;
	unsigned line;
	enum tok_kind kind;
	char text[P4H_NAME_MAX];
	unsigned long number;
};

/* Skip blanks, comments and preprocessor lines. */
static void skip_space(struct lexer *lx)
{
	for (;;) {
		const char *p = lx->p;
		if (*p == '\n') {
			lx->line++;
			lx->p++;
			/* A '#' first on a line (after blanks) starts a preprocessor line. */
			const char *q = lx->p;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '#') {
				while (*q && *q != '\n')
					q++;
				lx->p = q;
			}
		} else if (isspace((unsigned char)*p)) {
			lx->p++;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		} else if (p[0] == '/' && p[1] == '*') {
			lx->p += 2;
			while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n')
					lx->line++;
				lx->p++;
			}
			if (*lx->p)
				lx->p += 2;
		} else {
			return;
		}
	}
}

static void next(struct lexer *lx)
{
	skip_space(lx);
	const char *p = lx->p;
	if (!*p) {
		lx->kind = TK_END;
		lx->text[0] = 0;
		return;
	}
	if (isalpha((unsigned char)*p) || *p == '_') {
		size_t n = 0;
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		size_t c = n < P4H_NAME_MAX - 1 ? n : P4H_NAME_MAX - 1;
		memcpy(lx->text, p, c);
		lx->text[c] = 0;
		lx->kind = TK_IDENT;
		lx->p += n;
		return;
	}
	if (isdigit((unsigned char)*p)) {
		char *end;
		lx->number = strtoul(p, &end, 0); /* decimal or 0x hex */
		size_t n = (size_t)(end - p);
		size_t c = n < P4H_NAME_MAX - 1 ? n : P4H_NAME_MAX - 1;
		memcpy(lx->text, p, c);
		lx->text[c] = 0;
		lx->kind = TK_NUMBER;
		lx->p = end;
		return;
	}
	lx->kind = TK_PUNCT;
	lx->text[0] = *p;
	lx->text[1] = 0;
	lx->p++;
}

static int is_punct(const struct lexer *lx, char c)
{
	return lx->kind == TK_PUNCT && lx->text[0] == c;
}

static int is_ident(const struct lexer *lx, const char *s)
{
	return lx->kind == TK_IDENT && !strcmp(lx->text, s);
}

static int fail(const struct lexer *lx, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s:%u: %s (at '%s')", lx->file, lx->line, what, lx->text);
	return -1;
}

/* Skip an annotation: '@' already current; consumes the name and an optional (...) group. */
static void skip_annotation(struct lexer *lx)
{
	next(lx); /* name */
	next(lx);
	if (is_punct(lx, '(')) {
		int depth = 1;
		while (depth > 0 && lx->kind != TK_END) {
			next(lx);
			if (is_punct(lx, '('))
				depth++;
			else if (is_punct(lx, ')'))
				depth--;
		}
		next(lx);
	}
}

/* Parse `bit < N >` or `varbit < N >` (current token is bit/varbit). */
static int parse_width(struct lexer *lx, unsigned *width, char *err, size_t errlen)
{
	next(lx);
	if (!is_punct(lx, '<'))
		return fail(lx, err, errlen, "expected '<' after bit");
	next(lx);
	if (lx->kind != TK_NUMBER)
		return fail(lx, err, errlen, "bit width is not a literal number");
	*width = (unsigned)lx->number;
	next(lx);
	if (!is_punct(lx, '>'))
		return fail(lx, err, errlen, "expected '>' after bit width");
	next(lx);
	return 0;
}

static int lookup_typedef(const struct p4h_set *set, const char *name, unsigned *width)
{
	for (unsigned i = 0; i < set->n_typedefs; i++) {
		if (!strcmp(set->typedefs[i].name, name)) {
			*width = set->typedefs[i].width;
			return 0;
		}
	}
	return -1;
}

static int parse_header(struct p4h_set *set, struct lexer *lx, char *err, size_t errlen)
{
	next(lx); /* type name */
	if (lx->kind != TK_IDENT)
		return fail(lx, err, errlen, "expected a header type name");
	if (set->n_headers == P4H_HEADERS_MAX)
		return fail(lx, err, errlen, "too many header types");
	struct p4h_header *h = &set->headers[set->n_headers];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", lx->text);
	snprintf(h->file, sizeof(h->file), "%s", lx->file);
	next(lx);
	if (!is_punct(lx, '{'))
		return fail(lx, err, errlen, "expected '{' after header name");
	next(lx);
	while (!is_punct(lx, '}')) {
		if (lx->kind == TK_END)
			return fail(lx, err, errlen, "unterminated header");
		if (is_punct(lx, '@')) {
			skip_annotation(lx);
			continue;
		}
		struct p4h_field f;
		memset(&f, 0, sizeof(f));
		if (is_ident(lx, "bit") || is_ident(lx, "varbit")) {
			f.varbit = is_ident(lx, "varbit");
			if (parse_width(lx, &f.width, err, errlen))
				return -1;
		} else if (lx->kind == TK_IDENT) {
			if (lookup_typedef(set, lx->text, &f.width))
				return fail(lx, err, errlen, "field type is neither bit<N> nor a known typedef");
			next(lx);
		} else {
			return fail(lx, err, errlen, "expected a field type");
		}
		if (lx->kind != TK_IDENT)
			return fail(lx, err, errlen, "expected a field name");
		snprintf(f.name, sizeof(f.name), "%s", lx->text);
		next(lx);
		if (!is_punct(lx, ';'))
			return fail(lx, err, errlen, "expected ';' after field");
		next(lx);
		if (h->n_fields == P4H_FIELDS_MAX)
			return fail(lx, err, errlen, "too many fields");
		h->fields[h->n_fields++] = f;
		h->has_varbit |= f.varbit;
	}
	next(lx);
	set->n_headers++;
	return 0;
}

static int parse_typedef(struct p4h_set *set, struct lexer *lx, char *err, size_t errlen)
{
	next(lx);
	unsigned width;
	if (is_ident(lx, "bit")) {
		if (parse_width(lx, &width, err, errlen))
			return -1;
	} else if (lx->kind == TK_IDENT && !lookup_typedef(set, lx->text, &width)) {
		next(lx);
	} else {
		/* typedef of something else (a struct, a header): not a width, skip it. */
		while (!is_punct(lx, ';') && lx->kind != TK_END)
			next(lx);
		return 0;
	}
	if (lx->kind != TK_IDENT)
		return fail(lx, err, errlen, "expected a typedef name");
	if (set->n_typedefs == P4H_TYPEDEFS_MAX)
		return fail(lx, err, errlen, "too many typedefs");
	snprintf(set->typedefs[set->n_typedefs].name, P4H_NAME_MAX, "%s", lx->text);
	set->typedefs[set->n_typedefs].width = width;
	set->n_typedefs++;
	return 0;
}

/* pass 0 records typedefs only, pass 1 header types only, so a header may use a typedef from
 * any file read in the same call of p4h_parse_dir. */
static int parse_text(struct p4h_set *set, const char *text, const char *file, int pass, char *err, size_t errlen)
{
	struct lexer lx = {.p = text, .file = file, .line = 1};
	/* A '#' on the very first line is a preprocessor line too. */
	if (*lx.p == '#')
		while (*lx.p && *lx.p != '\n')
			lx.p++;
	next(&lx);
	while (lx.kind != TK_END) {
		if (pass == 1 && is_ident(&lx, "header")) {
			if (parse_header(set, &lx, err, errlen))
				return -1;
		} else if (pass == 0 && is_ident(&lx, "typedef")) {
			if (parse_typedef(set, &lx, err, errlen))
				return -1;
			next(&lx);
		} else {
			next(&lx);
		}
	}
	return 0;
}

int p4h_parse(struct p4h_set *set, const char *text, const char *file, char *err, size_t errlen)
{
	if (parse_text(set, text, file, 0, err, errlen))
		return -1;
	return parse_text(set, text, file, 1, err, errlen);
}

static int parse_file(struct p4h_set *set, const char *path, int pass, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		free(buf);
		fclose(fp);
		snprintf(err, errlen, "%s: cannot read", path);
		return -1;
	}
	buf[n] = 0;
	fclose(fp);
	int rc = parse_text(set, buf, path, pass, err, errlen);
	free(buf);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the *.p4 files of one directory, in name order, for one pass. */
static int parse_one_dir(struct p4h_set *set, const char *dir, int pass, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: cannot open directory", dir);
		return -1;
	}
	char *names[256];
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < 256) {
		size_t len = strlen(e->d_name);
		if (len > 3 && !strcmp(e->d_name + len - 3, ".p4"))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	int count = 0;
	for (unsigned i = 0; i < n; i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (count >= 0 && parse_file(set, path, pass, err, errlen) == 0)
			count++;
		else
			count = -1;
		free(names[i]);
	}
	return count;
}

int p4h_parse_dir(struct p4h_set *set, const char *dir, char *err, size_t errlen)
{
	char inc[1024];
	snprintf(inc, sizeof(inc), "%s/include", dir);
	int count = 0;
	for (int pass = 0; pass < 2; pass++) {
		int a = parse_one_dir(set, inc, pass, err, errlen);
		if (a < 0)
			return -1;
		int b = parse_one_dir(set, dir, pass, err, errlen);
		if (b < 0)
			return -1;
		count = a + b;
	}
	return count;
}

const struct p4h_header *p4h_find(const struct p4h_set *set, const char *type_name)
{
	for (unsigned i = 0; i < set->n_headers; i++)
		if (!strcmp(set->headers[i].name, type_name))
			return &set->headers[i];
	return NULL;
}
