/* The exporter-toolkit web configuration file (web_config.h), read with libyaml's document loader: the two
 * sections hopwatch applies, every other key refused by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "web_config.h"

#define WEB_CONFIG_MAX (1u << 20) /* a few lines of YAML; never a MiB */

/* A scalar node's text, NULL when the node is not a scalar. */
static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* YAML's null: an empty value, ~ or null (a section written with nothing under it). */
static int is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);
	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* value as a path: absolute as it is, else relative to the directory of the file at path. */
static char *resolve(const char *path, const char *value)
{
	const char *slash = strrchr(path, '/');
	if (value[0] == '/' || !slash)
		return strdup(value);
	size_t dir = (size_t)(slash - path) + 1, n = dir + strlen(value) + 1;
	char *out = malloc(n);
	if (out)
		snprintf(out, n, "%.*s%s", (int)dir, path, value);
	return out;
}

/* The tls_server_config mapping.  0, or -1 with err. */
static int tls_section(yaml_document_t *d, const yaml_node_t *m, const char *path, struct hw_web_config *c, char *err,
                       size_t errlen)
{
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const char *key = scalar(yaml_document_get_node(d, p->key));
		const char *value = scalar(yaml_document_get_node(d, p->value));
		char **slot = !key                        ? NULL
		              : !strcmp(key, "cert_file") ? &c->cert_file
		              : !strcmp(key, "key_file")  ? &c->key_file
		                                          : NULL;
		if (!slot) {
			snprintf(
			    err, errlen,
			    "web config '%s': tls_server_config.%s is not supported (hopwatch applies cert_file and "
			    "key_file only)",
			    path, key ? key : "(not a plain key)");
			return -1;
		}
		if (!value || !*value || *slot) {
			snprintf(err, errlen, "web config '%s': tls_server_config.%s: %s", path, key,
			         *slot ? "given twice" : "expected a file name");
			return -1;
		}
		if (!(*slot = resolve(path, value))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* The basic_auth_users mapping, USER: HASH.  0, or -1 with err. */
static int users_section(yaml_document_t *d, const yaml_node_t *m, const char *path, struct hw_web_config *c, char *err,
                         size_t errlen)
{
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const char *name = scalar(yaml_document_get_node(d, p->key));
		const char *hash = scalar(yaml_document_get_node(d, p->value));
		if (!name || !*name || strchr(name, ':') || !hash || !*hash) {
			snprintf(
			    err, errlen,
			    "web config '%s': basic_auth_users: expected USER: HASH pairs (a user name without ':', "
			    "a bcrypt hash as htpasswd -nB writes)",
			    path);
			return -1;
		}
		for (size_t i = 0; i < c->n_users; i++)
			if (!strcmp(c->users[i].name, name)) {
				snprintf(err, errlen, "web config '%s': basic_auth_users: user '%s' given twice", path,
				         name);
				return -1;
			}
		struct hw_web_user *nu = realloc(c->users, (c->n_users + 1) * sizeof(*nu));
		if (!nu) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		c->users = nu;
		nu[c->n_users].name = strdup(name);
		nu[c->n_users].hash = strdup(hash);
		c->n_users++;
		if (!nu[c->n_users - 1].name || !nu[c->n_users - 1].hash) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* The document's top mapping.  0, or -1 with err. */
static int top(yaml_document_t *d, const char *path, struct hw_web_config *c, char *err, size_t errlen)
{
	const yaml_node_t *root = yaml_document_get_root_node(d);
	if (!root || is_null(root))
		return 0; /* an empty file: nothing configured, as the exporter toolkit reads it */
	if (root->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "web config '%s': expected a mapping of tls_server_config and basic_auth_users",
		         path);
		return -1;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *key = scalar(yaml_document_get_node(d, p->key));
		const yaml_node_t *v = yaml_document_get_node(d, p->value);
		int tls = key && !strcmp(key, "tls_server_config"), users = key && !strcmp(key, "basic_auth_users");
		if (!tls && !users) {
			snprintf(err, errlen,
			         "web config '%s': '%s' is not supported (hopwatch applies tls_server_config and "
			         "basic_auth_users)",
			         path, key ? key : "(not a plain key)");
			return -1;
		}
		if (is_null(v))
			continue;
		if (!v || v->type != YAML_MAPPING_NODE) {
			snprintf(err, errlen, "web config '%s': %s: expected a mapping", path, key);
			return -1;
		}
		if (tls ? tls_section(d, v, path, c, err, errlen) : users_section(d, v, path, c, err, errlen))
			return -1;
	}
	if (!c->cert_file != !c->key_file) {
		snprintf(err, errlen, "web config '%s': tls_server_config needs both cert_file and key_file", path);
		return -1;
	}
	return 0;
}

int hw_web_config_read(const char *path, struct hw_web_config *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "re");
	struct stat st;
	if (!f || fstat(fileno(f), &st) || st.st_size > WEB_CONFIG_MAX) {
		snprintf(err, errlen, "web config '%s': %s", path, !f ? strerror(errno) : "larger than 1 MiB");
		if (f)
			fclose(f);
		return -1;
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc = -1;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		fclose(f);
		return -1;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "web config '%s' line %zu column %zu: %s", path, parser.problem_mark.line + 1,
		         parser.problem_mark.column + 1, parser.problem ? parser.problem : "not YAML");
	} else {
		rc = top(&doc, path, c, err, errlen);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	if (rc)
		hw_web_config_free(c);
	return rc;
}

void hw_web_config_free(struct hw_web_config *c)
{
	for (size_t i = 0; i < c->n_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	free(c->cert_file);
	free(c->key_file);
	memset(c, 0, sizeof(*c));
}
