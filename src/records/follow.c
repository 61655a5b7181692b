/* follow: growing records merged live into snapshots (see follow.h). */
#include "follow.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "merge.h"
#include "record.h"
#include "base/text.h"
#include "base/util.h"
#include "analysis/verdict.h"

enum {
    LATE = 2, /* intervals to wait for an agent that fell silent */
    READ_CHUNK = 65536,
    TICK_BYTES = 4 << 20, /* read per file per tick: the rest next tick, the screen stays live */
    MAX_LINE = 1 << 20,   /* a longer line is no record's: dropped up to its newline */
    SRV_QUEUE = 256,      /* server lines kept per file, not yet shown: the oldest go first */
    SRV_WAIT_BINS = 3,    /* a lower agent's first server line is waited for so many intervals */
};

struct queued {
    json_t *o; /* an interval line */
    long bin;
};

struct ffile {
    char *path;
    int fd;
    char *buf; /* the start of a line still being written */
    size_t len;
    int skipping; /* within a line longer than MAX_LINE: dropped up to its newline */
    double start; /* the run header's; 0 until it is read */
    int done;     /* its summary line came: no more intervals */
    int ready;    /* it wrote its {"type":"ready"} line (waiting for --start-at) or its header */
    int instance, instances; /* --instance I/N; 0 and 0 when not said */
    double start_at;         /* --start-at, seconds since the epoch; 0 */
    long last_bin;
    int intervals;    /* interval lines read */
    struct queued *q; /* intervals read, not yet shown */
    int nq;
    json_t **srv; /* server lines read, not yet shown or passed */
    int nsrv;
};

struct follow {
    char *pattern;
    struct ffile *f;
    int nf;
    double base, step;             /* the first header's start and interval */
    long next;                     /* the next bin to show */
    long shown;                    /* bins shown so far */
    double srv_until;              /* server samples up to here (seconds since base) may be shown */
    char *slot[FOLLOW_SERVERS][2]; /* each slot's collector name and target, as read */
    int src;                       /* the file whose server lines are shown; -1: none yet */
    struct follow_server server;   /* what follow_server_next returned last */
    int bad;
    int unopened;   /* records the pattern matched that could not be opened at the last look */
    int open_errno; /* ... why (EMFILE: the open-file limit) */
    struct hist *h;
    struct snapshot snap;
    struct verdict verdict; /* the agents' verdict on snap */
};

/*
 * A record the pattern matches, opened (-1: not to follow). One that cannot
 * be opened is counted with its reason, so that the merge of the rest does
 * not pass for the whole fleet; it is tried again at the next look.
 */
static int
open_record(struct follow *fl, const char *path)
{
    int fd;

    if (fl->nf >= FOLLOW_MAX) {
        fl->unopened++;
        fl->open_errno = 0;
        return -1;
    }
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fl->unopened++;
        fl->open_errno = errno;
    }
    return fd;
}

/* Opens the files the pattern matches now that are not followed yet. */
static void
rescan(struct follow *fl)
{
    glob_t g;
    size_t i;
    int j, known;

    if (glob(fl->pattern, 0, NULL, &g) != 0)
        return; /* no match yet: the agents have not started */
    fl->unopened = 0;
    for (i = 0; i < g.gl_pathc; i++) {
        for (j = 0, known = 0; j < fl->nf && !known; j++)
            known = strcmp(fl->f[j].path, g.gl_pathv[i]) == 0;
        int fd = known ? -1 : open_record(fl, g.gl_pathv[i]);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd); /* a device or a pipe (/dev/zero) never ends: regular files only */
            fd = -1;
        }
        if (fd < 0)
            continue;
        fl->f = xrealloc(fl->f, (size_t)(fl->nf + 1) * sizeof(*fl->f));
        memset(&fl->f[fl->nf], 0, sizeof(*fl->f));
        fl->f[fl->nf].path = xstrdup(g.gl_pathv[i]);
        fl->f[fl->nf].fd = fd;
        fl->f[fl->nf++].last_bin = -1;
    }
    globfree(&g);
}

/* The fleet's shape from a ready line or a run header: --instance I/N and --start-at. */
static void
take_fleet(struct ffile *ff, const json_t *o)
{
    double i = record_jnum(o, "instance"), n = record_jnum(o, "instances");
    double at = record_jnum(o, "start_at");

    ff->ready = 1;
    if (n >= 1 && n <= FOLLOW_MAX * 1024 && i >= 0 && i < n) {
        ff->instance = (int)i;
        ff->instances = (int)n;
    }
    if (at > 0 && at < 1e11)
        ff->start_at = at;
}

/* A server line waits for its interval to be shown; the oldest goes when too many wait. */
static void
take_server(struct ffile *ff, json_t *o)
{
    if (ff->nsrv == SRV_QUEUE) {
        json_decref(ff->srv[0]);
        memmove(ff->srv, ff->srv + 1, (size_t)(--ff->nsrv) * sizeof(*ff->srv));
    }
    if (ff->srv == NULL)
        ff->srv = xcalloc(SRV_QUEUE, sizeof(*ff->srv));
    ff->srv[ff->nsrv++] = o;
}

static void
take_line(struct follow *fl, struct ffile *ff, const char *line)
{
    json_t *o = json_loads(line, 0, NULL);
    const char *type = record_jstr(o, "type");
    char err[BT_ERRLEN];

    if (o == NULL) {
        fl->bad++;
        return;
    }
    if (strcmp(type, "run") == 0 && record_jnum(o, "start") > 0 && record_jnum(o, "start") < 1e11 &&
        record_jnum(o, "interval_s") >= 0.001 &&
        record_jnum(o, "interval_s") <= RECORD_MAX_INTERVAL &&
        (fl->step == 0 || fabs(record_jnum(o, "start") - fl->base) < RECORD_MAX_T)) {
        ff->start = record_jnum(o, "start");
        take_fleet(ff, o);
        if (fl->step == 0) {
            fl->step = record_jnum(o, "interval_s");
            fl->base = ff->start;
        }
    } else if (strcmp(type, "ready") == 0) {
        take_fleet(ff, o);
    } else if (strcmp(type, "server") == 0 && json_is_number(json_object_get(o, "t"))) {
        take_server(ff, o);
        return;
    } else if (strcmp(type, "summary") == 0) {
        ff->done = 1;
    } else if (strcmp(type, "interval") == 0 && ff->start > 0 &&
               record_interval_check(o, err) < 0) {
        fl->bad++;
    } else if (strcmp(type, "interval") == 0 && ff->start > 0) {
        long bin = lround((ff->start + record_jnum(o, "t") - fl->base) / fl->step);
        ff->q = xrealloc(ff->q, (size_t)(ff->nq + 1) * sizeof(*ff->q));
        ff->q[ff->nq].o = o;
        ff->q[ff->nq++].bin = bin;
        ff->last_bin = bin > ff->last_bin ? bin : ff->last_bin;
        ff->intervals++;
        return;
    }
    json_decref(o);
}

/* Takes the whole lines of the buffer from offset `from` (where no newline was before). */
static void
take_lines(struct follow *fl, struct ffile *ff, size_t from)
{
    char *nl, *p = ff->buf, *scan = ff->buf + from;

    while ((nl = memchr(scan, '\n', ff->len - (size_t)(scan - ff->buf))) != NULL) {
        *nl = '\0';
        if (ff->skipping)
            ff->skipping = 0; /* the end of an over-long line: dropped */
        else if (p[strspn(p, " \t\r")] != '\0')
            take_line(fl, ff, p);
        p = scan = nl + 1;
    }
    ff->len -= (size_t)(p - ff->buf);
    if (ff->len > 0)
        memmove(ff->buf, p, ff->len);
    if (ff->len > MAX_LINE) { /* no record has such a line: drop it, count it once */
        fl->bad += !ff->skipping;
        ff->skipping = 1;
        ff->len = 0;
    }
}

/*
 * Reads what the file gained, at most TICK_BYTES a tick; whole lines are
 * taken, the rest kept for later. Only the new bytes are searched for a
 * newline, so a long line costs its length once, not once per chunk.
 */
static void
read_file(struct follow *fl, struct ffile *ff)
{
    size_t total = 0;
    ssize_t n;

    while (total < TICK_BYTES) {
        ff->buf = xrealloc(ff->buf, ff->len + READ_CHUNK + 1);
        n = read(ff->fd, ff->buf + ff->len, READ_CHUNK);
        if (n <= 0)
            return;
        total += (size_t)n;
        ff->len += (size_t)n;
        take_lines(fl, ff, ff->len - (size_t)n);
    }
}

/*
 * 1: bin fl->next can be shown (every live agent wrote it, or waiting is
 * over); 0: not yet; -1: no agent has it but later ones exist (skip it).
 */
static int
bin_ready(const struct follow *fl)
{
    int i, have = 0, later = 0, waiting = 0;

    for (i = 0; i < fl->nf; i++) {
        const struct ffile *ff = &fl->f[i];
        if (ff->start == 0)
            continue;
        have |= ff->nq > 0 && ff->q[0].bin <= fl->next;
        later |= ff->last_bin > fl->next;
        waiting |= !ff->done && ff->last_bin < fl->next;
    }
    if (waiting && wall_now() < fl->base + (double)(fl->next + LATE) * fl->step)
        return 0;
    return have ? 1 : later ? -1 : 0;
}

static enum verdict_kind
verdict_of(const char *key)
{
    int k;

    for (k = 0; k < VK__COUNT; k++)
        if (strcmp(verdict_key((enum verdict_kind)k), key) == 0)
            return (enum verdict_kind)k;
    return VK_NONE;
}

/* The merged bin as an engine's snapshot of one interval. */
/* The records left out, appended to text: "; 177 of 300 records not open: Too many ..." */
static void
follow_unopened(const struct follow *fl, char *text, size_t len)
{
    size_t n = strlen(text);
    char why[64];

    if (fl->unopened == 0)
        return;
    if (fl->open_errno == EMFILE || fl->open_errno == ENFILE)
        snprintf(why, sizeof why, "%s (raise ulimit -n)", strerror(fl->open_errno));
    else if (fl->open_errno != 0)
        snprintf(why, sizeof why, "%s", strerror(fl->open_errno));
    else
        snprintf(why, sizeof why, "at most %d are followed", FOLLOW_MAX);
    snprintf(text + n, len - n, "; %d of %d records could not be opened: %s", fl->unopened,
             fl->unopened + fl->nf, why);
}

static void
fill_snapshot(struct follow *fl, const struct merge_bin *b)
{
    struct snapshot *s = &fl->snap;
    const char *kind;
    int k, agree;

    wstats_reset(&s->cur);
    hist_merge(s->cur.lat, fl->h);
    s->cur.txns = b->transactions;
    s->cur.ops = u64_of(b->ops);
    s->cur.late = b->late;
    s->cur.reconnects = b->reconnects;
    s->cur.connect_fails = b->connect_fails;
    s->cur.retried = b->retried;
    s->cur.retries = b->retries;
    s->cur.connected = b->connected;
    for (k = ERR_NONE + 1; k < ERR__COUNT; k++)
        s->cur.errors[k] = (uint64_t)json_integer_value(
            json_object_get(b->by_kind, err_kind_name((enum err_kind)k)));
    if (wstats_errors(&s->cur) == 0)
        s->cur.errors[ERR_OTHER] = b->errors; /* a record without errors_by_kind */
    wstats_merge(&s->total, &s->cur);
    s->t = (double)fl->next * fl->step;
    s->interval_s = b->len > 0 ? b->len : fl->step;
    s->clients = (int)b->clients;
    kind = merge_bin_verdict(b, &agree);
    memset(&fl->verdict, 0, sizeof fl->verdict);
    fl->verdict.kind = verdict_of(kind);
    fl->verdict.confidence = "agents";
    snprintf(fl->verdict.evidence, sizeof fl->verdict.evidence, "%d of %d agents say so", agree,
             b->agents);
    follow_unopened(fl, fl->verdict.evidence, sizeof fl->verdict.evidence);
}

/* A server line's time, in seconds since the fleet's start (its file's header is read). */
static double
server_time(const struct follow *fl, const struct ffile *ff, const json_t *o)
{
    return ff->start + record_jnum(o, "t") - fl->base;
}

/*
 * Whether agent j, below the candidate, may still write server lines: it
 * has a header, none yet, and neither ended nor wrote SRV_WAIT_BINS
 * intervals without one (an agent that collects has a sample by then).
 */
static int
may_sample(const struct follow *fl, int j)
{
    const struct ffile *ff = &fl->f[j];

    return ff->start > 0 && ff->nsrv == 0 && !ff->done && ff->intervals < SRV_WAIT_BINS;
}

/*
 * The lowest instance with a header and server lines, once chosen kept: one
 * agent's samples, the same as merge keeps. A lower agent whose first sample
 * may still come is waited for, or a race would pick the next one.
 */
static void
pick_source(struct follow *fl)
{
    for (int i = 0; fl->src < 0 && i < fl->nf; i++) {
        const struct ffile *ff = &fl->f[i];
        int lowest = ff->start > 0 && ff->nsrv > 0;
        for (int j = 0; lowest && j < fl->nf; j++)
            lowest = j == i || fl->f[j].instance > ff->instance ||
                     (fl->f[j].nsrv == 0 && !may_sample(fl, j));
        if (lowest)
            fl->src = i;
    }
}

/* The other agents' server lines up to what is shown: the same server, not shown twice. */
static void
drop_passed(struct follow *fl)
{
    if (fl->src < 0) /* not chosen yet: any of them may become the source */
        return;
    for (int i = 0; i < fl->nf; i++) {
        struct ffile *ff = &fl->f[i];
        int n = 0;
        if (i == fl->src || ff->start == 0)
            continue;
        while (n < ff->nsrv && server_time(fl, ff, ff->srv[n]) <= fl->srv_until)
            json_decref(ff->srv[n++]);
        if (n > 0)
            memmove(ff->srv, ff->srv + n, (size_t)(ff->nsrv - n) * sizeof(*ff->srv));
        ff->nsrv -= n;
    }
}

/* Takes an agent's second line in a bin back out of the clients at once and the agents. */
static void
uncount(struct merge_bin *b, const json_t *o)
{
    uint64_t clients = record_ju64(o, "clients"), connected = record_ju64(o, "connected");

    b->clients -= clients < b->clients ? clients : b->clients;
    b->connected -= connected < b->connected ? connected : b->connected;
    b->agents--;
}

/* Merges every queued interval up to bin fl->next. */
static void
show_bin(struct follow *fl)
{
    struct merge_bin b;
    json_t *used[FOLLOW_MAX * 2];
    char err[BT_ERRLEN];
    int i, nused = 0;

    merge_bin_start(&b, fl->h);
    for (i = 0; i < fl->nf; i++) {
        struct ffile *ff = &fl->f[i];
        int n = 0;
        while (n < ff->nq && ff->q[n].bin <= fl->next &&
               nused < (int)(sizeof used / sizeof *used)) {
            json_t *o = ff->q[n++].o;
            if (merge_bin_add(&b, o, ff->start + record_jnum(o, "t") - fl->base, fl->h, err) < 0)
                fl->bad++;
            used[nused++] = o;
            if (n > 1) /* a late agent's two intervals in one bin: its clients count once */
                uncount(&b, o);
        }
        if (n > 0) /* a file with no line yet has no queue: memmove(NULL, ...) is undefined */
            memmove(ff->q, ff->q + n, (size_t)(ff->nq - n) * sizeof(*ff->q));
        ff->nq -= n;
    }
    merge_bin_finish(&b, fl->h);
    fill_snapshot(fl, &b);
    merge_bin_free(&b);
    for (i = 0; i < nused; i++)
        json_decref(used[i]);
}

struct follow *
follow_open(const char *pattern, char *err)
{
    struct follow *fl;

    if (*pattern == '\0')
        return seterr(err, "--records needs a pattern such as 'records/*.jsonl'"), NULL;
    fl = xcalloc(1, sizeof(*fl));
    fl->pattern = xstrdup(pattern);
    fl->h = hist_new();
    fl->next = 1; /* the first interval ends one interval after the start */
    fl->src = -1;
    wstats_init(&fl->snap.cur);
    wstats_init(&fl->snap.total);
    rescan(fl);
    return fl;
}

/* Every record followed has its summary and no interval waits to be shown. */
static int
all_ended(const struct follow *fl)
{
    int i;

    for (i = 0; i < fl->nf; i++)
        if (fl->f[i].start == 0 || !fl->f[i].done || fl->f[i].nq > 0)
            return 0;
    return fl->nf > 0 && fl->unopened == 0;
}

/* The lowest bin queued after fl->next (bin_ready said one is). */
static long
next_queued(const struct follow *fl)
{
    long next = LONG_MAX;

    for (int i = 0; i < fl->nf; i++)
        if (fl->f[i].nq > 0 && fl->f[i].q[0].bin < next)
            next = fl->f[i].q[0].bin;
    return next > fl->next && next != LONG_MAX ? next : fl->next + 1;
}

const struct snapshot *
follow_next(struct follow *fl)
{
    int i, r;

    rescan(fl);
    for (i = 0; i < fl->nf; i++)
        read_file(fl, &fl->f[i]);
    if (fl->step == 0)
        return NULL;
    while ((r = bin_ready(fl)) < 0)
        fl->next = next_queued(fl); /* straight to the next bin with data, over any gap */
    if (r == 0 && all_ended(fl))
        fl->srv_until = INFINITY; /* the samples after the last interval, as merge keeps them */
    if (r == 0)
        return NULL;
    show_bin(fl);
    /* a sample lands just after the tick it measures: half an interval's grace */
    fl->srv_until = ((double)fl->next + 0.5) * fl->step;
    fl->next++;
    fl->shown++;
    pick_source(fl);
    drop_passed(fl);
    return &fl->snap;
}

void
follow_close(struct follow *fl)
{
    int i, j;

    if (fl == NULL)
        return;
    for (i = 0; i < fl->nf; i++) {
        for (j = 0; j < fl->f[i].nq; j++)
            json_decref(fl->f[i].q[j].o);
        free(fl->f[i].q);
        for (j = 0; j < fl->f[i].nsrv; j++)
            json_decref(fl->f[i].srv[j]);
        free(fl->f[i].srv);
        free(fl->f[i].buf);
        free(fl->f[i].path);
        close(fl->f[i].fd);
    }
    free(fl->f);
    for (i = 0; i < FOLLOW_SERVERS; i++) {
        free(fl->slot[i][0]);
        free(fl->slot[i][1]);
    }
    free(fl->pattern);
    hist_free(fl->h);
    wstats_free(&fl->snap.cur);
    wstats_free(&fl->snap.total);
    free(fl);
}

/* The slot of a collector and target: the first FOLLOW_SERVERS seen get one; -1. */
static int
slot_of(struct follow *fl, const char *name, const char *target)
{
    int i;

    for (i = 0; i < FOLLOW_SERVERS && fl->slot[i][0] != NULL; i++)
        if (strcmp(fl->slot[i][0], name) == 0 && strcmp(fl->slot[i][1], target) == 0)
            return i;
    if (i == FOLLOW_SERVERS)
        return -1;
    fl->slot[i][0] = xstrdup(name);
    fl->slot[i][1] = xstrdup(target);
    return i;
}

/* The rows and events of a server line, escaped: a record is a file anyone may have written. */
static void
server_view(const json_t *o, struct coll_view *v)
{
    const json_t *r;
    size_t k;

    v->server_tps = record_jnum(o, "server_tps");
    text_clean(v->note, sizeof v->note, record_jstr(o, "note"));
    json_array_foreach(json_object_get(o, "rows"), k, r)
    {
        struct coll_row *row = &v->rows[v->nrows];
        if (v->nrows == COLL_MAX_ROWS)
            break;
        text_clean(row->section, sizeof row->section, record_jstr(r, "section"));
        text_clean(row->label, sizeof row->label, record_jstr(r, "label"));
        text_clean(row->value, sizeof row->value, record_jstr(r, "value"));
        row->num = record_jnum(r, "num");
        row->level = ROW_NORMAL; /* the record does not keep the level */
        v->nrows++;
    }
    json_array_foreach(json_object_get(o, "events"), k, r)
    {
        if (v->nevents == COLL_MAX_EVENTS)
            break;
        text_clean(v->events[v->nevents++], sizeof v->events[0], json_string_value(r) ?: "");
    }
}

/* A server line as the result its collector published. 0, or -1 when it has no slot. */
static int
server_result(struct follow *fl, const json_t *o, double t)
{
    struct follow_server *fs = &fl->server;
    struct collect_result *res = &fs->res;
    double cost = record_jnum(o, "cost_ms");

    fs->slot = slot_of(fl, record_jstr(o, "collector"), record_jstr(o, "target"));
    if (fs->slot < 0)
        return -1;
    text_clean(fs->name, sizeof fs->name, record_jstr(o, "collector"));
    text_clean(fs->target, sizeof fs->target, record_jstr(o, "target"));
    memset(res, 0, sizeof *res);
    res->ok = json_is_true(json_object_get(o, "ok"));
    res->t = t;
    res->cost_ms = cost >= 0 && cost < 1e9 ? cost : 0;
    res->late = record_ju64(o, "late");
    res->probes_s = NAN;
    text_clean(res->error, sizeof res->error, record_jstr(o, "error"));
    coll_view_reset(&res->view);
    res->have_view = res->ok && json_is_array(json_object_get(o, "rows"));
    if (res->have_view)
        server_view(o, &res->view);
    return 0;
}

const struct follow_server *
follow_server_next(struct follow *fl)
{
    struct ffile *ff;

    pick_source(fl);
    if (fl->src < 0)
        return NULL;
    ff = &fl->f[fl->src];
    while (ff->nsrv > 0) {
        json_t *o = ff->srv[0];
        double t = server_time(fl, ff, o);
        int r;
        if (t > fl->srv_until)
            return NULL;
        memmove(ff->srv, ff->srv + 1, (size_t)(--ff->nsrv) * sizeof(*ff->srv));
        r = server_result(fl, o, t);
        json_decref(o);
        if (r == 0)
            return &fl->server;
    }
    return NULL;
}

void
follow_state(const struct follow *fl, struct follow_state *st)
{
    memset(st, 0, sizeof *st);
    st->files = fl->nf;
    st->shown = (int)fl->shown;
    for (int i = 0; i < fl->nf; i++) {
        const struct ffile *ff = &fl->f[i];
        st->ready += ff->ready;
        st->started += ff->start > 0;
        st->ended += ff->start > 0 && ff->done;
        st->expected = ff->instances > st->expected ? ff->instances : st->expected;
        st->start_at = ff->start_at > st->start_at ? ff->start_at : st->start_at;
    }
    /* a record the pattern matched but that could not be opened has not ended either */
    st->done = all_ended(fl) && fl->nf >= st->expected;
}

void
follow_status_text(const struct follow_state *st, double now, char *buf, size_t len)
{
    int of = st->expected > st->files ? st->expected : st->files;
    double left = st->start_at > 0 ? ceil(st->start_at - now) : 0;

    if (st->done)
        snprintf(buf, len, "done: %d of %d agents ended", st->ended, of);
    else if (st->shown > 0 || st->files == 0)
        snprintf(buf, len, "%s", "");
    else if (left >= 1)
        snprintf(buf, len, "starts in %.0f s, %d of %d agents ready", fmin(left, 1e9), st->ready,
                 of);
    else if (st->start_at > 0)
        snprintf(buf, len, "starting, %d of %d agents ready", st->ready, of);
    else
        snprintf(buf, len, "waiting for the agents' first interval (%d records)", st->files);
}

const struct verdict *
follow_verdict(const struct follow *fl)
{
    return &fl->verdict;
}
