/* instance: one agent of a fleet; --instance and --start-at (see instance.h). */
#include "instance.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "options.h"
#include "base/util.h"

/* The most agents one run may have: client ids stay within an int. */
#define INSTANCES_MAX 100000

int
instance_parse(const char *spec, int *index, int *count, char *err)
{
    const char *slash = strchr(spec, '/');
    long long i, n;
    char head[32];

    if (slash == NULL || (size_t)(slash - spec) >= sizeof head)
        return seterr(err, "--instance takes I/N (this agent's index from 0, of N), not '%s'",
                      spec);
    snprintf(head, sizeof head, "%.*s", (int)(slash - spec), spec);
    if (safe_strtoll(head, &i) < 0 || safe_strtoll(slash + 1, &n) < 0 || n < 1 ||
        n > INSTANCES_MAX || i < 0 || i >= n)
        return seterr(err,
                      "--instance takes I/N with 0 <= I < N <= %d (e.g. 0/3, 1/3, 2/3), not '%s'",
                      INSTANCES_MAX, spec);
    *index = (int)i;
    *count = (int)n;
    return 0;
}

/* "+10s", "+2m", "+10": seconds from now. */
static int
parse_relative(const char *spec, double now, double *epoch)
{
    char num[32];
    size_t len = strlen(spec + 1);
    double mult = 1, v;

    if (len == 0 || len >= sizeof num)
        return -1;
    memcpy(num, spec + 1, len + 1);
    if (num[len - 1] == 's' || num[len - 1] == 'm') {
        mult = num[len - 1] == 'm' ? 60 : 1;
        num[--len] = '\0';
    }
    if (safe_strtod(num, &v) < 0 || v < 0)
        return -1;
    *epoch = now + v * mult;
    return 0;
}

/* A zone after the time: "Z", "+HH:MM", "-HHMM" or nothing (local). */
static int
parse_zone(const char *z, struct tm *tm, double *epoch)
{
    int hh, mm, sign;

    if (*z == '\0') {
        tm->tm_isdst = -1;
        *epoch = (double)mktime(tm);
        return 0;
    }
    if (strcmp(z, "Z") == 0) {
        *epoch = (double)timegm(tm);
        return 0;
    }
    sign = *z == '-' ? -1 : 1;
    if ((*z != '+' && *z != '-') ||
        (sscanf(z + 1, "%2d:%2d", &hh, &mm) != 2 && sscanf(z + 1, "%2d%2d", &hh, &mm) != 2))
        return -1;
    *epoch = (double)timegm(tm) - sign * (hh * 3600 + mm * 60);
    return 0;
}

int
instance_parse_time(const char *spec, double now, double *epoch, char *err)
{
    struct tm tm;
    const char *rest;
    double frac = 0;

    if (spec[0] == '+' && parse_relative(spec, now, epoch) == 0)
        return 0;
    if (spec[0] != '+' && safe_strtod(spec, epoch) == 0 && *epoch > 0)
        return 0;
    memset(&tm, 0, sizeof tm);
    rest = strptime(spec, "%Y-%m-%dT%H:%M:%S", &tm);
    if (rest != NULL && *rest == '.') { /* fractions of a second */
        char *end;
        frac = strtod(rest, &end);
        rest = end;
    }
    if (rest != NULL && parse_zone(rest, &tm, epoch) == 0) {
        *epoch += frac;
        return 0;
    }
    return seterr(err,
                  "--start-at takes +SECONDS (e.g. +10s), epoch seconds or an ISO time such as "
                  "2026-12-01T02:00:00Z, not '%s'",
                  spec);
}

static void
count_from_env(struct runconf *rc, const char *index_env)
{
    const char *count_env = getenv("BENCHTOP_INSTANCES");
    long long i, n = rc->instances;

    if (!options_given(rc, "instances") && count_env != NULL &&
        (safe_strtoll(count_env, &n) < 0 || n < 1 || n > INSTANCES_MAX))
        usage_fatal("BENCHTOP_INSTANCES must be a count from 1 to %d, not '%s'", INSTANCES_MAX,
                    count_env);
    if (!options_given(rc, "instances") && count_env == NULL)
        return; /* an Indexed Job's index alone does not make this run one of a fleet */
    if (safe_strtoll(index_env, &i) < 0 || i < 0 || i >= n)
        usage_fatal("JOB_COMPLETION_INDEX is '%s', not an index from 0 to %lld (check the "
                    "Job's completions against --instances)",
                    index_env, n - 1);
    rc->instance = (int)i;
    rc->instances = (int)n;
}

void
instance_configure(struct runconf *rc)
{
    const char *index_env = getenv("JOB_COMPLETION_INDEX");
    char err[BT_ERRLEN];
    double now = wall_now();

    if (rc->instances < 1)
        rc->instances = 1;
    if (rc->instance_spec != NULL) {
        if (options_given(rc, "instances"))
            usage_fatal("--instance I/N already gives the count (drop --instances)");
        if (instance_parse(rc->instance_spec, &rc->instance, &rc->instances, err) < 0)
            usage_fatal("%s", err);
    } else if (index_env != NULL) {
        count_from_env(rc, index_env);
    } else if (options_given(rc, "instances")) {
        usage_fatal("--instances N needs this agent's index: --instance I/N, or "
                    "JOB_COMPLETION_INDEX as an Indexed Job sets it");
    }
    if ((long long)rc->clients * rc->instances > 1000000000)
        usage_fatal("-c %d times %d instances is too many clients", rc->clients, rc->instances);
    if (rc->start_at_spec == NULL)
        return;
    if (instance_parse_time(rc->start_at_spec, now, &rc->start_at, err) < 0)
        usage_fatal("%s", err);
    if (rc->start_at < now - 1)
        usage_fatal("--start-at %s was %.0f s ago (give a later time, or +SECONDS)",
                    rc->start_at_spec, now - rc->start_at);
}

int
instance_wait(const struct runconf *rc, int sigfd)
{
    struct pollfd p = {.fd = sigfd, .events = POLLIN};
    double left;

    if (rc->start_at <= 0)
        return 0;
    if (!rc->quiet)
        fprintf(stderr, "instance %d/%d: starting in %.1f s (--start-at)\n", rc->instance,
                rc->instances, rc->start_at - wall_now());
    while ((left = rc->start_at - wall_now()) > 0) {
        int ms = (int)ceil(left * 1000);
        if (poll(&p, 1, ms > 1000 ? 1000 : ms) > 0)
            return -1; /* SIGINT/SIGTERM: the signalfd is left for the session to read */
    }
    return 0;
}
