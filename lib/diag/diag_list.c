/* The diagnose checklist printer (include/hopwatch/diag.h) and the topology check through
 * `hopwatch-analyzer topology`, shared by the collector's and the analyzer's diagnose. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hopwatch/diag.h"

static const char *const status_word[] = {"PASS", "SKIP", "FAIL"};

bool hw_diag_wanted_in(const struct hw_diag_list *run, const char *name)
{
	if (!run->only)
		return true;
	size_t n = strlen(name);
	for (const char *p = run->only; (p = strstr(p, name)); p += n)
		if ((p == run->only || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

void hw_diag_vprint(struct hw_diag_list *run, enum hw_diag_status st, const char *name, const char *fix,
                    const char *fmt, va_list ap)
{
	if (!hw_diag_wanted_in(run, name))
		return;
	printf("%s %s: ", status_word[st], name);
	vprintf(fmt, ap);
	printf("\n");
	if (st == HW_DIAG_FAIL) {
		printf("  fix: %s\n", fix ? fix : "see the reason above");
		run->fails++;
	}
	fflush(stdout);
}

void hw_diag_print(struct hw_diag_list *l, enum hw_diag_status st, const char *name, const char *fix, const char *fmt,
                   ...)
{
	va_list ap;
	va_start(ap, fmt);
	hw_diag_vprint(l, st, name, fix, fmt, ap);
	va_end(ap);
}

int hw_diag_topo_args(char **args, const char *const *lldp, int n_lldp, const char *const *json, int n_json,
                      const char *map)
{
	int n = 0;
	for (int i = 0; i < n_lldp; i++) {
		args[n++] = "--lldp";
		args[n++] = (char *)lldp[i];
	}
	for (int i = 0; i < n_json; i++) {
		args[n++] = "--lldpd-json";
		args[n++] = (char *)json[i];
	}
	if (map && !n)
		return -1;
	if (map) {
		args[n++] = "--map";
		args[n++] = (char *)map;
	}
	args[n] = NULL;
	return n;
}

void hw_diag_topology(struct hw_diag_list *run, const char *name, const char *analyzer, char *const *src_args,
                      const char *records)
{
	char *argv[16];
	int n = 0;
	argv[n++] = (char *)analyzer;
	argv[n++] = "topology";
	for (int i = 0; src_args[i] && n < 12; i++)
		argv[n++] = src_args[i];
	if (records) {
		argv[n++] = "--jsonl";
		argv[n++] = (char *)records;
	}
	argv[n] = NULL;
	int fd[2];
	if (pipe(fd)) {
		hw_diag_print(run, HW_DIAG_FAIL, name, NULL, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		printf("cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	char line[512], summary[512] = "", unplaced[512] = "", last[512] = "";
	unsigned n_unplaced = 0;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "Unplaced", 8) && n_unplaced++ < 3) {
			size_t o = strlen(unplaced);
			snprintf(unplaced + o, sizeof(unplaced) - o, "%s%s", o ? "; " : "",
			         line + strspn(line + 8, " ") + 8);
		}
		if (!strncmp(line, "topology:", 9))
			snprintf(summary, sizeof(summary), "%s", line);
		snprintf(last, sizeof(last), "%s", line);
	}
	if (f)
		fclose(f);
	int st = 0;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !*summary) {
		hw_diag_print(run, HW_DIAG_FAIL, name,
		              "check the LLDP sources named above (and the collector's --analyzer path)",
		              "%s topology failed (exit %d): %s", analyzer, WIFEXITED(st) ? WEXITSTATUS(st) : -1, last);
		return;
	}
	const char *u = strstr(summary, "unplaced "), *pl = strstr(summary, "placed ");
	unsigned long nu = u ? strtoul(u + 9, NULL, 10) : 0, np = pl ? strtoul(pl + 7, NULL, 10) : 0;
	if (!records)
		hw_diag_print(run, HW_DIAG_PASS, name, NULL, "the LLDP sources load: %s", summary + 10);
	else if (nu)
		hw_diag_print(run, HW_DIAG_FAIL, name,
		              "give every INT node id a name in the --map file that matches its LLDP system name or "
		              "management address, and its port numbers interface names (docs/topology.md); check LLDP "
		              "runs on those ports",
		              "%lu of %lu INT port references in the records are not on the LLDP topology: %s%s", nu,
		              nu + np, unplaced, n_unplaced > 3 ? "; ..." : "");
	else
		hw_diag_print(run, HW_DIAG_PASS, name, NULL,
		              "all %lu INT port references in the records are on the LLDP topology (%s)", np,
		              summary + 10);
}
