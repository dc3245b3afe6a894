/* The exporter web configuration reader of --web-config (lib/common/web_config.c): the YAML form and the JSON
 * form give the same settings, relative file names are taken from the file's directory, and what hopwatch
 * would not apply (client certificates, http_server_config, half a TLS pair, a user twice) is refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "web_config.h"

static char dir[] = "/tmp/test_web_config.XXXXXX";
static char path[64];

/* path := dir/web.yml holding text. */
static void write_config(const char *text)
{
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char hash_a[] = "$2y$10$abcdefghijklmnopqrstuuZ9W2d5wF1bTg1z9LrZp6Y0i0M2m2m2y";
static const char hash_b[] = "$5$s4ltS4lt$xyz";

static void assert_two_users_and_tls(const struct hw_web_config *c, const char *cert, const char *key)
{
	assert_int_equal(c->n_users, 2);
	assert_string_equal(c->users[0].name, "prom");
	assert_string_equal(c->users[0].hash, hash_a);
	assert_string_equal(c->users[1].name, "ops");
	assert_string_equal(c->users[1].hash, hash_b);
	assert_string_equal(c->cert_file, cert);
	assert_string_equal(c->key_file, key);
}

static void test_yaml(void **state)
{
	(void)state;
	/* as the exporter-toolkit documents it; the relative cert_file is dir/certs/c.pem, the absolute key as is */
	char text[512];
	snprintf(text, sizeof(text),
	         "# hopwatch /metrics\ntls_server_config:\n  cert_file: certs/c.pem\n  key_file: /etc/k.pem\n"
	         "basic_auth_users:\n  prom: %s\n  ops: '%s'\n",
	         hash_a, hash_b);
	write_config(text);
	struct hw_web_config c;
	char err[512], cert[128];
	assert_int_equal(hw_web_config_read(path, &c, err, sizeof(err)), 0);
	snprintf(cert, sizeof(cert), "%s/certs/c.pem", dir);
	assert_two_users_and_tls(&c, cert, "/etc/k.pem");
	hw_web_config_free(&c);
}

static void test_json(void **state)
{
	(void)state;
	char text[512];
	snprintf(text, sizeof(text),
	         "{\"basic_auth_users\": {\"prom\": \"%s\", \"ops\": \"%s\"},\n"
	         " \"tls_server_config\": {\"cert_file\": \"/c.pem\", \"key_file\": \"k.pem\"}}\n",
	         hash_a, hash_b);
	write_config(text);
	struct hw_web_config c;
	char err[512], key[128];
	assert_int_equal(hw_web_config_read(path, &c, err, sizeof(err)), 0);
	snprintf(key, sizeof(key), "%s/k.pem", dir);
	assert_two_users_and_tls(&c, "/c.pem", key);
	hw_web_config_free(&c);
}

/* An empty file, or sections with nothing under them: nothing configured (the exporter toolkit's reading). */
static void test_empty(void **state)
{
	(void)state;
	const char *texts[] = {"", "# nothing\n", "tls_server_config:\nbasic_auth_users: ~\n"};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		write_config(texts[i]);
		struct hw_web_config c;
		char err[512];
		assert_int_equal(hw_web_config_read(path, &c, err, sizeof(err)), 0);
		assert_int_equal(c.n_users, 0);
		assert_null(c.cert_file);
		assert_null(c.key_file);
	}
}

static void test_refused(void **state)
{
	(void)state;
	const struct {
		const char *text, *says; /* the file, and what the message must name */
	} bad[] = {
	    {"tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  client_ca_file: ca.pem\n",
	     "tls_server_config.client_ca_file is not supported"},
	    {"http_server_config:\n  http2: false\n", "'http_server_config' is not supported"},
	    {"tls_server_config:\n  cert_file: c.pem\n", "needs both cert_file and key_file"},
	    {"basic_auth_users:\n  prom: a\n  prom: b\n", "user 'prom' given twice"},
	    {"basic_auth_users:\n  - prom\n", "basic_auth_users: expected a mapping"},
	    {"basic_auth_users:\n  prom:\n", "expected USER: HASH pairs"},
	    {"- a\n- b\n", "expected a mapping of tls_server_config and basic_auth_users"},
	    {"basic_auth_users: {prom: \"x\"\n", "line "}, /* not YAML: the place is named */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_config(bad[i].text);
		struct hw_web_config c;
		char err[512] = "";
		assert_int_equal(hw_web_config_read(path, &c, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says) || !strstr(err, path))
			fail_msg("file %zu: message '%s' does not name '%s' and the file", i, err, bad[i].says);
		assert_int_equal(c.n_users, 0);
		assert_null(c.cert_file);
	}
	struct hw_web_config c;
	char err[512];
	assert_int_equal(hw_web_config_read("/nonexistent/web.yml", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'/nonexistent/web.yml': No such file"));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_yaml),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
