/* The process's clocks in one place: monotonic and wall-clock time in ns or seconds, and the
 * timespec deadlines pthread_cond_timedwait wants. */
#ifndef HOPWATCH_CLOCK_H
#define HOPWATCH_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: for intervals, timeouts and pacing. */
uint64_t hw_mono_ns(void);

/* CLOCK_REALTIME in ns since the epoch: for timestamps that leave the process. */
uint64_t hw_real_ns(void);

/* CLOCK_MONOTONIC in seconds (tv_sec + tv_nsec / 1e9). */
double hw_mono_s(void);

/* CLOCK_REALTIME in seconds since the epoch (tv_sec + tv_nsec / 1e9). */
double hw_real_s(void);

/* How hw_utc_fmt writes a time: RFC 3339 (2026-01-01T00:00:00.001Z) or for people (2026-01-01 00:00:00.001 UTC). */
enum hw_utc_style { HW_UTC_RFC3339, HW_UTC_PEOPLE };
/* ns since the epoch in UTC, in style, with digits (0..9) of the second's fraction, into buf (40 bytes do). */
void hw_utc_fmt(uint64_t ns, enum hw_utc_style style, unsigned digits, char *buf, size_t n);
/* The console's: RFC 3339 with microseconds, 2026-01-01T00:00:00.001000Z (hw_utc_fmt). */
void hw_utc_text(uint64_t ns, char *buf, size_t n);

/* ns (of whichever clock) as a timespec. */
struct timespec hw_ns_timespec(uint64_t ns);

/* CLOCK_REALTIME ms from now: the deadline of a condition variable on the default clock. */
struct timespec hw_real_deadline(long ms);

#endif
