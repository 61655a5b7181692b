/* sweep-output: step and sweep JSON lines, the table, the findings (see records/sweep-output.h). */
#include "sweep-output.h"

#include <math.h>
#include <string.h>

/* 42100 -> "42,100"; below 100, one decimal. */
static const char *
count_text(double v, char *buf, size_t len)
{
    char digits[32];
    size_t n, o = 0;

    if (!isfinite(v) || fabs(v) < 100) {
        snprintf(buf, len, "%.1f", isfinite(v) ? v : 0.0);
        return buf;
    }
    snprintf(digits, sizeof(digits), "%.0f", v);
    n = strlen(digits);
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && digits[i - 1] != '-' && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* Microseconds as "3.1 ms", "0.45 ms", "130 ms". */
static const char *
ms_text(double us, char *buf, size_t len)
{
    double ms = us / 1000;

    if (!isfinite(ms))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, ms < 10 ? "%.2f ms" : ms < 100 ? "%.1f ms" : "%.0f ms", ms);
    return buf;
}

const char *
sweep_load_text(const struct sweep *sw, const struct sweep_step *st, char *buf, size_t len)
{
    char n[32];

    if (sw->axis == SWEEP_CLIENTS)
        snprintf(buf, len, "%.0f client%s", st->clients, st->clients == 1 ? "" : "s");
    else if (sw->axis == SWEEP_SETTING)
        snprintf(buf, len, "%s=%s", sw->setting, sw->values[st->index % SWEEP_MAX_STEPS]);
    else if (st->capacity)
        snprintf(buf, len, "closed loop");
    else
        snprintf(buf, len, "%s/s", count_text(st->rate, n, sizeof(n)));
    return buf;
}

/* Whether every step from i on had i's verdict. */
static int
verdict_holds(const struct sweep *sw, int i)
{
    for (int k = i + 1; k < sw->nsteps; k++)
        if (sw->steps[k].verdict != sw->steps[i].verdict)
            return 0;
    return 1;
}

/*
 * The step whose verdict explains a knee at k: the knee itself when it
 * names a limit, else the first step after it that does; -1 if none.
 */
static int
explaining_step(const struct sweep *sw, int k)
{
    for (int i = k; i < sw->nsteps; i++)
        if (sw->steps[i].verdict != VK_NONE && sw->steps[i].verdict != VK_UNDERLOADED)
            return i;
    return -1;
}

/* "42,100 tps, p99 3.1 ms" */
static void
figures_text(const struct sweep_step *st, char *buf, size_t len)
{
    char tps[32], p99[32];

    snprintf(buf, len, "%s tps, p99 %s", count_text(st->tps, tps, sizeof(tps)),
             ms_text((double)st->lat.p99, p99, sizeof(p99)));
}

void
sweep_knee_text(const struct sweep *sw, char *buf, size_t len)
{
    int k = sw->find_rate ? -1 : sweep_knee(sw->steps, sw->nsteps, sw->axis), e;
    const struct sweep_step *st;
    char load[48], from[48], fig[64];

    if (sw->find_rate || sw->nsteps < 2 || sw->axis == SWEEP_SETTING) { /* no load ratio */
        buf[0] = '\0';
        return;
    }
    if (k < 0) {
        snprintf(buf, len, "no knee: more load still bought throughput up to %s",
                 sweep_load_text(sw, &sw->steps[sw->nsteps - 1], load, sizeof(load)));
        return;
    }
    st = &sw->steps[k];
    sweep_load_text(sw, st, load, sizeof(load));
    figures_text(st, fig, sizeof(fig));
    e = explaining_step(sw, k);
    if (e < 0) {
        snprintf(buf, len, "knee at %s: %s", load, fig);
        return;
    }
    sweep_load_text(sw, &sw->steps[e], from, sizeof(from));
    snprintf(buf, len, "knee at %s: %s; %s %s %s%s", load, fig, verdict_label(sw->steps[e].verdict),
             verdict_holds(sw, e) ? "from" : "at", from, verdict_holds(sw, e) ? " on" : "");
}

/* "latency rise: p99 1.2 ms at 2 clients, 4.0 ms at 4 clients (...)"; "" when p99 never rose so. */
static void
sweep_latency_text(const struct sweep *sw, char *buf, size_t len)
{
    int next, k = sw->find_rate ? -1 : sweep_latency_rise(sw->steps, sw->nsteps, sw->axis, &next);
    char from[48], to[48], a[32], b[32];

    buf[0] = '\0';
    if (k < 0 || sw->axis == SWEEP_SETTING)
        return;
    snprintf(buf, len, "latency rise: p99 %s at %s, %s at %s (more than doubled per doubling)",
             ms_text((double)sw->steps[k].lat.p99, a, sizeof a),
             sweep_load_text(sw, &sw->steps[k], from, sizeof from),
             ms_text((double)sw->steps[next].lat.p99, b, sizeof b),
             sweep_load_text(sw, &sw->steps[next], to, sizeof to));
}

/* "most tps: 16 clients: 43,000 tps, p99 3.4 ms". */
static void
sweep_best_text(const struct sweep *sw, char *buf, size_t len)
{
    int b = sweep_best(sw->steps, sw->nsteps);
    char load[48], fig[64];

    if (b < 0) {
        snprintf(buf, len, "most tps: none (no step finished a transaction)");
        return;
    }
    figures_text(&sw->steps[b], fig, sizeof(fig));
    snprintf(buf, len, "most tps: %s: %s", sweep_load_text(sw, &sw->steps[b], load, sizeof(load)),
             fig);
}

/* "highest rate meeting ...: N tps (p99 ...)" and the failing rate beside it. */
static void
find_answer_text(const struct sweep *sw, char *buf, size_t len)
{
    const struct rate_search *rs = &sw->search;
    char pass[32], fail[32], pv[32], fv[32], what[16];
    int n;

    snprintf(what, sizeof(what), "p%g", sw->slo.pct);
    n = snprintf(buf, len, "highest rate meeting %s: %s tps (%s %s)", sw->slo.text,
                 count_text(rs->pass, pass, sizeof(pass)), what,
                 ms_text(rs->pass_us, pv, sizeof(pv)));
    if (n < 0 || (size_t)n >= len)
        return;
    if (rs->fail > 0 && isnan(rs->fail_us))
        snprintf(buf + n, len - (size_t)n,
                 "; at %s tps %s could not be measured (no answers, or over 1%% errors)",
                 count_text(rs->fail, fail, sizeof(fail)), what);
    else if (rs->fail > 0)
        snprintf(buf + n, len - (size_t)n, "; at %s tps %s was %s",
                 count_text(rs->fail, fail, sizeof(fail)), what,
                 ms_text(rs->fail_us, fv, sizeof(fv)));
    else if (rs->capacity > 0 && rs->pass >= rs->capacity)
        snprintf(buf + n, len - (size_t)n,
                 "; that is the closed-loop capacity: the target holds "
                 "at any rate the server can take");
    else
        snprintf(buf + n, len - (size_t)n, "; no rate tried missed it (stopped after %d probes)",
                 rs->probes);
}

void
sweep_find_text(const struct sweep *sw, char *buf, size_t len)
{
    const struct rate_search *rs = &sw->search;
    char a[32], b[32], v[32], what[16];

    buf[0] = '\0';
    if (!sw->find_rate)
        return;
    snprintf(what, sizeof(what), "p%g", sw->slo.pct);
    if (rs->nonmonotonic)
        snprintf(buf, len,
                 "no answer for %s: it is not monotonic in the rate (%s tps met it, %s tps "
                 "missed it): the target is within the noise of this host; probe longer "
                 "(--step-time) or give a target above the noise",
                 sw->slo.text, count_text(rs->met_max, a, sizeof a),
                 count_text(rs->verifying || rs->fail == 0 ? rs->pass : rs->fail, b, sizeof b));
    else if (rs->below_floor && rs->low > 0)
        snprintf(buf, len,
                 "no rate met %s: even at %s tps %s was %s; the target is below the floor "
                 "latency of this server and client",
                 sw->slo.text, count_text(rs->low, a, sizeof a), what,
                 ms_text(rs->low_us, v, sizeof v));
    else if (rs->pass > 0)
        find_answer_text(sw, buf, len);
    else
        snprintf(buf, len, "no rate met %s", sw->slo.text);
}

/* find-rate, as it goes (stderr): it runs minutes, one probe per step time. */
void
sweep_progress_line(FILE *f, const struct sweep *sw, const struct sweep_step *st)
{
    char load[48], tps[32], v[32];

    if (!sw->find_rate)
        return;
    if (st->capacity) {
        fprintf(f, "find-rate: closed-loop capacity %s tps; no probe goes above %.0f%% of it\n",
                count_text(st->tps, tps, sizeof tps), SWEEP_CAPACITY_MARGIN * 100);
        return;
    }
    fprintf(f, "find-rate: probe %d at %s: %s tps, p%g %s, %s%s\n", sw->search.probes,
            sweep_load_text(sw, st, load, sizeof load), count_text(st->tps, tps, sizeof tps),
            sw->slo.pct, ms_text(st->slo_value_us, v, sizeof v), st->slo_met ? "meets " : "misses ",
            sw->slo.text);
}

static void
json_server(FILE *f, const struct sweep_server *s)
{
    fputs(",\"server\":{\"tps\":", f);
    json_number(f, s->tps);
    json_member_num(f, "active", s->active);
    json_member_num(f, "waiting", s->waiting);
    json_member_num(f, "cpu_pct", s->cpu_pct);
    fputc('}', f);
}

static const char *
axis_name(const struct sweep *sw)
{
    static const char *const names[] = {"clients", "rate", "setting"};

    return sw->find_rate ? "find-rate" : names[sw->axis];
}

/* Whether step i+1 (more clients) did what step i's verdict predicted (verdict_check). */
static enum verdict_check
step_check(const struct sweep *sw, int i)
{
    const struct sweep_step *a = &sw->steps[i], *b = &sw->steps[i + 1];
    struct verdict_point lo, hi;

    if (sw->axis != SWEEP_CLIENTS || i + 1 >= sw->nsteps)
        return VC_UNTESTED;
    verdict_point_init(&lo, a->verdict, (int)a->clients, a->tps, 0);
    verdict_point_init(&hi, b->verdict, (int)b->clients, b->tps, b->verdict == VK_LOCK);
    lo.host = a->host;
    hi.host = b->host;
    return verdict_check(&lo, &hi);
}

void
report_step_json(FILE *f, const struct sweep *sw, const struct sweep_step *st)
{
    fprintf(f, "{\"type\":\"step\",\"sweep\":\"%s\",\"index\":%d,\"clients\":%.0f,\"rate\":%.3f,",
            axis_name(sw), st->index, st->clients, st->rate);
    if (sw->axis == SWEEP_SETTING) { /* the line so far ends with a comma */
        fputs("\"setting\":", f);
        json_put_string(f, sw->setting);
        fputs(",\"value\":", f);
        json_put_string(f, sw->values[st->index % SWEEP_MAX_STEPS]);
        fputc(',', f);
    }
    fprintf(f, "\"warmup_t\":%.3f,\"start_t\":%.3f,\"end_t\":%.3f,\"duration_s\":%.3f,",
            st->warmup_t, st->start_t, st->end_t, st->end_t - st->start_t);
    fprintf(f, "\"warmup_transactions\":%llu,\"transactions\":%llu,\"ops_total\":%llu,",
            (unsigned long long)st->warmup_txns, (unsigned long long)st->txns,
            (unsigned long long)st->ops);
    fprintf(f, "\"tps\":%.3f,\"ops\":%.3f,\"errors\":%llu,\"outage_s\":%.3f,", st->tps, st->ops_s,
            (unsigned long long)sweep_step_errors(st), st->outage_s);
    json_errors_by_kind(f, st->errors);
    fputc(',', f);
    json_lat(f, &st->lat);
    fprintf(f, ",\"verdict\":{\"kind\":\"%s\",\"label\":", verdict_key(st->verdict));
    json_put_string(f, verdict_label(st->verdict));
    fprintf(f, ",\"share\":%.3f}", st->verdict_share);
    json_server(f, &st->server);
    if (st->index > 0 && sw->axis == SWEEP_CLIENTS)
        fprintf(f, ",\"previous_check\":{\"index\":%d,\"verdict\":\"%s\",\"result\":\"%s\"}",
                st->index - 1, verdict_key(sw->steps[st->index - 1].verdict),
                verdict_check_key(step_check(sw, st->index - 1)));
    if (st->capacity)
        fputs(",\"capacity\":true", f);
    if (st->probe) {
        fputs(",\"probe\":{\"slo\":", f);
        json_put_string(f, sw->slo.text);
        json_member_num(f, "value_us", st->slo_value_us);
        fprintf(f, ",\"met\":%s,\"again\":%s}", st->slo_met ? "true" : "false",
                st->probe_again ? "true" : "false");
    }
    fputs("}\n", f);
    fflush(f);
}

/* {"index":..,"clients":..,"rate":..,"tps":..,"p99_us":..,"verdict":".."} or null */
static void
json_step_ref(FILE *f, const struct sweep *sw, int i)
{
    const struct sweep_step *st = &sw->steps[i < 0 ? 0 : i];

    if (i < 0) {
        fputs("null", f);
        return;
    }
    fprintf(f,
            "{\"index\":%d,\"clients\":%.0f,\"rate\":%.3f,\"tps\":%.3f,\"p99_us\":%llu,"
            "\"verdict\":\"%s\"}",
            i, st->clients, st->rate, st->tps, (unsigned long long)st->lat.p99,
            verdict_key(st->verdict));
}

static void
json_find_rate(FILE *f, const struct sweep *sw)
{
    const struct rate_search *rs = &sw->search;
    char text[256];

    fputs(",\"find_rate\":{\"slo\":", f);
    json_put_string(f, sw->slo.text);
    fprintf(f, ",\"percentile\":%g,\"limit_us\":%.1f,\"rate\":", sw->slo.pct, sw->slo.limit_us);
    json_number(f, rs->pass > 0 && !rs->nonmonotonic ? rs->pass : NAN);
    json_member_num(f, "value_us", rs->pass > 0 ? rs->pass_us : NAN);
    json_member_num(f, "failing_rate", rs->fail > 0 ? rs->fail : NAN);
    json_member_num(f, "failing_value_us", rs->fail > 0 ? rs->fail_us : NAN);
    json_member_num(f, "capacity_tps",
                    rs->capacity > 0 ? rs->capacity / SWEEP_CAPACITY_MARGIN : NAN);
    fprintf(f, ",\"probes\":%d,\"verified\":%s,\"monotonic\":%s,\"below_floor\":%s", rs->probes,
            rs->verified ? "true" : "false", rs->nonmonotonic ? "false" : "true",
            rs->below_floor ? "true" : "false");
    sweep_find_text(sw, text, sizeof(text));
    json_member_str(f, "text", text);
    fputc('}', f);
}

/* ,"checks":{"confirmed":N,"contradicted":N,"untested":N} over the steps that have a next. */
static void
json_checks(FILE *f, const struct sweep *sw)
{
    int n[3] = {0, 0, 0};

    for (int i = 0; i + 1 < sw->nsteps; i++)
        n[step_check(sw, i)]++;
    fprintf(f, ",\"checks\":{\"confirmed\":%d,\"contradicted\":%d,\"untested\":%d}",
            n[VC_CONFIRMED], n[VC_CONTRADICTED], n[VC_UNTESTED]);
}

void
report_sweep_json(FILE *f, const struct sweep *sw)
{
    int knee = sw->find_rate ? -1 : sweep_knee(sw->steps, sw->nsteps, sw->axis), explains;
    char text[256];

    fprintf(f,
            "{\"type\":\"sweep\",\"sweep\":\"%s\",\"steps\":%d,\"warmup_s\":%.3f,"
            "\"step_time_s\":%.3f,\"knee\":",
            axis_name(sw), sw->nsteps, sw->warmup_s, sw->step_s);
    json_step_ref(f, sw, knee);
    explains = knee >= 0 ? explaining_step(sw, knee) : -1;
    fprintf(f, ",\"knee_explained_by\":");
    json_step_ref(f, sw, explains);
    fprintf(f, ",\"knee_verdict_holds\":%s",
            explains >= 0 && verdict_holds(sw, explains) ? "true" : "false");
    sweep_knee_text(sw, text, sizeof(text));
    json_member_str(f, "knee_text", text);
    sweep_latency_text(sw, text, sizeof(text));
    json_member_str(f, "latency_rise_text", text);
    fputs(",\"best\":", f);
    json_step_ref(f, sw, sweep_best(sw->steps, sw->nsteps));
    sweep_best_text(sw, text, sizeof(text));
    json_member_str(f, "best_text", text);
    if (sw->find_rate)
        json_find_rate(f, sw);
    else
        fputs(",\"find_rate\":null", f);
    json_checks(f, sw);
    fputs("}\n", f);
    fflush(f);
}

void
report_sweep_table(FILE *f, const struct sweep *sw, const struct report_ctx *ctx)
{
    char tps[32], line[256];

    fprintf(f, "sweep: %s, workload %s, %d step%s of %.3g s after %.3g s of warm-up\n",
            ctx->rc->tgt.masked, ctx->workload, sw->nsteps, sw->nsteps == 1 ? "" : "s", sw->step_s,
            sw->warmup_s);
    fprintf(f, "%10s %12s %10s %10s %10s %8s  %s\n",
            sw->axis == SWEEP_SETTING   ? sw->setting
            : sw->axis == SWEEP_CLIENTS ? "clients"
                                        : "rate",
            "tps", "p50 ms", "p95 ms", "p99 ms", "errors", "verdict (next step: confirmed or not)");
    for (int i = 0; i < sw->nsteps; i++) {
        const struct sweep_step *st = &sw->steps[i];
        if (sw->axis == SWEEP_CLIENTS)
            snprintf(line, sizeof(line), "%.0f", st->clients);
        else if (sw->axis == SWEEP_SETTING)
            snprintf(line, sizeof(line), "%s", sw->values[i]);
        else if (st->capacity)
            snprintf(line, sizeof(line), "closed");
        else
            count_text(st->rate, line, sizeof(line));
        enum verdict_check c = step_check(sw, i);
        fprintf(f, "%10s %12s %10.3f %10.3f %10.3f %8llu  %s (%.0f%%)%s%s%s\n", line,
                count_text(st->tps, tps, sizeof(tps)), (double)st->lat.p50 / 1000.0,
                (double)st->lat.p95 / 1000.0, (double)st->lat.p99 / 1000.0,
                (unsigned long long)sweep_step_errors(st), verdict_label(st->verdict),
                st->verdict_share * 100,
                !st->probe    ? ""
                : st->slo_met ? ", meets the target"
                              : ", misses the target",
                c == VC_CONFIRMED      ? ", confirmed"
                : c == VC_CONTRADICTED ? ", contradicted"
                                       : "",
                st->outage_s > 0 ? ", OUTAGE: left out of the knee" : "");
    }
    sweep_knee_text(sw, line, sizeof(line));
    if (line[0])
        fprintf(f, "%s\n", line);
    sweep_latency_text(sw, line, sizeof(line));
    if (line[0])
        fprintf(f, "%s\n", line);
    sweep_best_text(sw, line, sizeof(line));
    fprintf(f, "%s\n", line);
    sweep_find_text(sw, line, sizeof(line));
    if (line[0])
        fprintf(f, "%s\n", line);
}
