/* hopwatch-gen as a program: the pcap opens with libpcap with the expected packets and timestamps,
 * runs are deterministic, truth lines match the summary, bad options exit 2.  argv[1] = program. */
#include <limits.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static const char *prog;
static char dir[] = "/tmp/hopwatch-gen-test-XXXXXX";

static int run(const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "cd %s && '%s' %s 2>stderr.txt", dir, prog, args);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	b[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return b;
}

static unsigned long long summary_field(const char *json, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(json, pat);
	assert_non_null(p);
	return strtoull(p + strlen(pat), NULL, 10);
}

static void test_pcap_opens(void **state)
{
	(void)state;
	char path[512], err[PCAP_ERRBUF_SIZE];
	assert_int_equal(run("reports --count 100 --coalesce 4 --seed 3 --interval-ns 2500 --out a.pcap "
	                     "--truth a.jsonl --summary a.json"),
	                 0);
	snprintf(path, sizeof(path), "%s/a.pcap", dir);
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(p);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned n = 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		uint64_t t = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		assert_int_equal(t, 1767225600000000000ull + 2500ull * n);
		assert_int_equal(h->caplen, h->len);
		assert_int_equal(d[12] << 8 | d[13], 0x0800);
		assert_int_equal(d[36] << 8 | d[37], 32766);
		n++;
	}
	pcap_close(p);
	assert_int_equal(n, 25); /* 100 reports, 4 per packet */

	size_t len;
	char *sum = slurp("a.json", &len), *truth = slurp("a.jsonl", &len);
	assert_non_null(sum);
	assert_non_null(truth);
	assert_int_equal(summary_field(sum, "packets"), 25);
	assert_int_equal(summary_field(sum, "reports"), 100);
	unsigned long long lines = 0;
	for (char *c = truth; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, summary_field(sum, "records"));
	assert_int_equal(lines, 400); /* 3 hops + the reporting node per report */
	free(sum);
	free(truth);
}

static void test_deterministic(void **state)
{
	(void)state;
	const char *common = "reports --count 500 --format tr2.0 --coalesce 3 --roce --ip mix --drop-rate 0.2 "
	                     "--malform all:0.3 --unavailable-rate 0.1 --seq-gap-every 7";
	char args[512];
	size_t la, lb, lc, ta, tb;
	snprintf(args, sizeof(args), "%s --seed 9 --out a.pcap --truth a.jsonl", common);
	assert_int_equal(run(args), 0);
	snprintf(args, sizeof(args), "%s --seed 9 --out b.pcap --truth b.jsonl", common);
	assert_int_equal(run(args), 0);
	snprintf(args, sizeof(args), "%s --seed 10 --out c.pcap", common);
	assert_int_equal(run(args), 0);
	char *a = slurp("a.pcap", &la), *b = slurp("b.pcap", &lb), *c = slurp("c.pcap", &lc);
	char *x = slurp("a.jsonl", &ta), *y = slurp("b.jsonl", &tb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_int_equal(ta, tb);
	assert_memory_equal(x, y, ta);
	assert_true(la != lc || memcmp(a, c, la));
	free(a), free(b), free(c), free(x), free(y);
}

static void test_malformed_counted(void **state)
{
	(void)state;
	size_t len;
	assert_int_equal(run("reports --count 400 --malform all:0.5 --out m.pcap --summary m.json"), 0);
	char *s = slurp("m.json", &len);
	unsigned long long bad = 0;
	const char *kinds[] = {"truncate",    "report-length", "shim-length",      "hops",      "report-version",
	                       "int-version", "bitmap",        "ip-header-length", "udp-length"};
	for (unsigned i = 0; i < 9; i++) {
		unsigned long long v = summary_field(s, kinds[i]);
		assert_int_not_equal(v, 0);
		bad += v;
	}
	assert_int_equal(bad + summary_field(s, "valid_packets"), summary_field(s, "packets"));
	assert_int_equal(summary_field(s, "records"), 4 * summary_field(s, "valid_packets"));
	free(s);
}

static void test_bad_options(void **state)
{
	(void)state;
	size_t len;
	const char *bad[] = {
	    "reports --out x.pcap --hops 99",
	    "reports --out x.pcap --format tr3.0",
	    "reports --out x.pcap --format tr0.5 --malform report-length",
	    "reports --out x.pcap --instructions node,colour",
	    "reports --hops 2",
	    "reports --out x.pcap --int-version 1.0 --instructions buffer",
	    "reports --out x.pcap --count ten",
	    "reports --out x.pcap --bogus",
	    "report --out x.pcap",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run(bad[i]), 2);
		char *e = slurp("stderr.txt", &len);
		assert_non_null(strstr(e, "hopwatch-gen: "));
		free(e);
	}
	char *e;
	run("reports --out x.pcap --hops 99");
	e = slurp("stderr.txt", &len);
	assert_non_null(strstr(e, "--hops"));
	free(e);
	assert_int_equal(run("reports --help > help.txt"), 0);
	e = slurp("help.txt", &len);
	assert_non_null(strstr(e, "--malform"));
	free(e);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-hopwatch-gen\n", argv[0]);
		return 2;
	}
	static char abs_prog[4096];
	if (!realpath(argv[1], abs_prog)) {
		perror(argv[1]);
		return 1;
	}
	prog = abs_prog;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pcap_opens),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_malformed_counted),
	    cmocka_unit_test(test_bad_options),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return rc;
}
