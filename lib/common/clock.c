/* The process's clocks: clock_gettime wrapped once (see clock.h), so that no file keeps its own
 * mono_ns/now_ns helper. */
#include "clock.h"
#include <stdio.h>

static struct timespec now(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts;
}

uint64_t hw_mono_ns(void)
{
	struct timespec ts = now(CLOCK_MONOTONIC);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t hw_real_ns(void)
{
	struct timespec ts = now(CLOCK_REALTIME);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double hw_mono_s(void)
{
	struct timespec ts = now(CLOCK_MONOTONIC);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double hw_real_s(void)
{
	struct timespec ts = now(CLOCK_REALTIME);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct timespec hw_ns_timespec(uint64_t ns)
{
	return (struct timespec){.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
}

struct timespec hw_real_deadline(long ms)
{
	struct timespec ts = now(CLOCK_REALTIME);
	ts.tv_nsec += ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

void hw_utc_fmt(uint64_t ns, enum hw_utc_style style, unsigned digits, char *buf, size_t n)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	char day[32] = "";
	int people = style == HW_UTC_PEOPLE;
	if (gmtime_r(&s, &tm))
		strftime(day, sizeof(day), people ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%dT%H:%M:%S", &tm);
	unsigned frac = (unsigned)(ns % 1000000000u);
	if (digits > 9)
		digits = 9;
	for (unsigned i = digits; i < 9; i++)
		frac /= 10; /* truncated, not rounded: a time never moves into the next unit */
	const char *zone = people ? " UTC" : "Z";
	if (digits)
		snprintf(buf, n, "%s.%0*u%s", day, (int)digits, frac, zone);
	else
		snprintf(buf, n, "%s%s", day, zone);
}

void hw_utc_text(uint64_t ns, char *buf, size_t n)
{
	hw_utc_fmt(ns, HW_UTC_RFC3339, 6, buf, n);
}
