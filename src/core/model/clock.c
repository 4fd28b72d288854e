// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* include/croute/model/clock.h */
#include <time.h>

#include <croute/model/clock.h>

double cr_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

bool cr_stop_now(const struct cr_stop *s)
{
	if (!s)
		return false;
	if (s->cancel && __atomic_load_n(s->cancel, __ATOMIC_ACQUIRE))
		return true;
	if (s->asks && s->asks(s->arg))
		return true;
	return s->deadline > 0 && cr_now() >= s->deadline;
}
