/*
 * mysql/collector: the server's view of a MySQL or MariaDB target.
 *
 * A sample is SHOW GLOBAL STATUS (counters and gauges), a few SHOW GLOBAL
 * VARIABLES (the settings row) and SHOW FULL PROCESSLIST (sessions by
 * command and state, the longest-running statement). None of these needs
 * a privilege except the processlist, which shows only the user's own
 * sessions without PROCESS: then those rows say so instead of misleading.
 *
 * Variables are looked up by name, so a server that lacks one (MySQL 8 and
 * MariaDB 10.x differ in a few InnoDB counters) shows that row dimmed as
 * "n/a" and everything else as usual. The parser and derive are pure: the
 * status result set is turned into the text the mysql client prints in
 * batch mode and parsed like a captured file, so tests cover the same path.
 */
#include "mysql.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ownids.h"
#include "base/text.h"
#include "base/units.h"
#include "collectors/shared/locks.h"
#include "engine/target.h"

#define MY_STATUS_NAME(id, name) name,
static const char *const status_names[MY_NSTATUS] = {MY_STATUS_VARS(MY_STATUS_NAME)};
#undef MY_STATUS_NAME

static const char *const setting_names[MY_NSETTINGS] = {
    [MY_SET_BUFFER_POOL] = "innodb_buffer_pool_size",
    [MY_SET_FLUSH_AT_TRX] = "innodb_flush_log_at_trx_commit",
    [MY_SET_SYNC_BINLOG] = "sync_binlog",
    [MY_SET_MAX_CONN] = "max_connections",
    [MY_SET_LOG_BIN] = "log_bin",
};

static const char settings_sql[] =
    "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_buffer_pool_size', "
    "'innodb_flush_log_at_trx_commit', 'sync_binlog', 'max_connections', 'log_bin')";

/* PROCESS as a global privilege of the current account (roles are not followed). */
static const char process_sql[] =
    "SELECT COUNT(p.GRANTEE), u.g FROM (SELECT CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), "
    "'@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''') AS g) u "
    "LEFT JOIN information_schema.USER_PRIVILEGES p ON p.GRANTEE = u.g "
    "AND p.PRIVILEGE_TYPE = 'PROCESS' GROUP BY u.g";

/*
 * Stand-ins for a counter a server lacks: MariaDB 10.6+ dropped
 * Innodb_rows_read but counts the same rows (temporary tables excluded) as
 * Rows_read. Handler_write is no stand-in for Innodb_rows_inserted: it also
 * counts the temporary tables of DISTINCT and ORDER BY, so those rows stay
 * "n/a" on MariaDB rather than show a wrong figure.
 */
static const struct alternate {
    enum my_status_var var, alt;
} alternates[] = {
    {MY_ROWS_READ, MY_SQL_ROWS_READ},
};

/* A rate row: which counter, its label and when it deserves attention. */
struct rate_row {
    enum my_status_var var;
    const char *label;
    int warn_above_zero; /* any occurrence is worth a look */
};

static const struct rate_row query_rows[] = {
    {MY_QUESTIONS, "questions/s", 0},
    {MY_COM_SELECT, "select/s", 0},
    {MY_COM_INSERT, "insert/s", 0},
    {MY_COM_UPDATE, "update/s", 0},
    {MY_COM_DELETE, "delete/s", 0},
    {MY_COM_COMMIT, "commit/s", 0},
    {MY_COM_ROLLBACK, "rollback/s", 1},
    {MY_SLOW_QUERIES, "slow queries/s", 1},
    {MY_TMP_DISK_TABLES, "tmp disk tables/s", 1},
    {MY_READ_RND_NEXT, "full-scan rows/s", 0},
};

static const struct rate_row innodb_rows[] = {
    {MY_BP_READS, "pool disk reads/s", 0},      {MY_BP_WAIT_FREE, "pool wait free/s", 1},
    {MY_ROW_LOCK_WAITS, "row lock waits/s", 1}, {MY_DATA_FSYNCS, "data fsyncs/s", 0},
    {MY_LOG_FSYNCS, "log fsyncs/s", 0},         {MY_LOG_WAITS, "log waits/s", 1},
    {MY_LOG_WRITES, "log writes/s", 0},         {MY_ROWS_READ, "rows read/s", 0},
    {MY_ROWS_INSERTED, "rows inserted/s", 0},   {MY_ROWS_UPDATED, "rows updated/s", 0},
    {MY_ROWS_DELETED, "rows deleted/s", 0},
};

/*
 * One glance at the client sessions between samples (my_coll_probe): each
 * session's command and state from SHOW FULL PROCESSLIST, and, when PROCESS
 * shows other users' transactions, its InnoDB transaction's state from
 * INNODB_TRX (the two are read at slightly different moments: a session may
 * have moved on in between). Two statements, not a join of the two
 * information_schema tables: MariaDB 10.11's server CPU per glance, 2,000
 * in a row, was 0.22 ms for the join, 0.04 ms for SHOW FULL PROCESSLIST
 * (as much as SELECT 1) and 0.06 ms for INNODB_TRX alone.
 */
static const char probe_trx_sql[] =
    "SELECT trx_mysql_thread_id, trx_state, trx_id,"
    " TIMESTAMPDIFF(SECOND, trx_started, NOW()), LEFT(trx_query, 241)"
    " FROM information_schema.INNODB_TRX";

/*
 * Who blocks whom, asked only by a glance whose transactions showed one in
 * LOCK WAIT: MariaDB's INNODB_LOCK_WAITS (MySQL 8 moved it to
 * performance_schema.data_lock_waits; there the chains stay unknown).
 */
static const char lock_waits_sql[] =
    "SELECT requesting_trx_id, blocking_trx_id FROM information_schema.INNODB_LOCK_WAITS";

/* A transaction INNODB_TRX showed: its session, its state, and who blocks it. */
struct my_trx {
    uint64_t id;                    /* the session's (trx_mysql_thread_id) */
    uint64_t trx_id;                /* the transaction's */
    uint64_t blocker;               /* the session that blocks it (INNODB_LOCK_WAITS); 0 */
    char state[16];                 /* "RUNNING", "LOCK WAIT", "COMMITTING", "ROLLING BACK" */
    double age_s;                   /* since it started */
    char query[2 * COLL_STALL_SQL]; /* its statement, LOCK_QUERY_CHARS characters at most */
};
_Static_assert(LOCK_QUERY_CHARS == 241, "probe_trx_sql reads LEFT(trx_query, LOCK_QUERY_CHARS)");

enum { MY_CHAIN_MAX = 64 };

/* The collector's connection. */
struct my_coll {
    MYSQL *m;
    unsigned long own_id; /* our session, left out of the processlist */
    int has_process;
    char grantee[100]; /* 'user'@'host' (process_sql) */
    char version[64];
    struct coll_glances probed; /* glances since the last sample */
    uint64_t *ids;              /* benchtop's connection ids, one copy per glance (ownids) */
    struct my_trx *trx;         /* the glance's transactions, sorted by session id */
    int ntrx, trx_cap;
    int waits;         /* of them, in LOCK WAIT */
    int no_lock_waits; /* INNODB_LOCK_WAITS is not there (MySQL 8): chains unknown */
    struct lock_node chain[MY_CHAIN_MAX]; /* the glance's sessions in a transaction */
    int nchain;
    double stall_own; /* benchtop's waiters rooted at other sessions, summed over glances */
    char stall_what[COLL_STALL_WHAT];
};

enum { LONGEST_WARN_S = 10, LONGEST_BAD_S = 60 };

enum { IO_TIMEOUT_S = 3 }; /* per read or write of the collector's connection */

/* ---- parsing (pure) ---- */

static int
present(const struct my_sample *s, enum my_status_var v)
{
    return (s->status_present >> v) & 1;
}

static int
find_status(const char *name, size_t len)
{
    int i;

    for (i = 0; i < MY_NSTATUS; i++)
        if (strlen(status_names[i]) == len && strncasecmp(status_names[i], name, len) == 0)
            return i;
    return -1;
}

static int
is_blank(char c, int tabs)
{
    return c == ' ' || c == '\r' || (tabs && c == '\t');
}

/* Trims blanks; tabs only when asked, since a tab separates an empty value from its name. */
static void
trim(const char **p, const char **end, int tabs)
{
    while (*p < *end && is_blank(**p, tabs))
        (*p)++;
    while (*end > *p && is_blank((*end)[-1], tabs))
        (*end)--;
}

/*
 * Splits one line into name and value: "name<TAB>value" (batch mode) or
 * "| name | value |" (the interactive client's table). 0 if the line holds
 * nothing (a border, a blank), 1 if split, -1 if it is not a status line.
 */
static int
split_line(const char *line, const char *eol, const char **name, const char **name_end,
           const char **value, const char **value_end)
{
    const char *sep;

    trim(&line, &eol, 0);
    if (line == eol || *line == '+')
        return 0;
    if (*line == '|') {
        line++;
        if (eol > line && eol[-1] == '|')
            eol--;
        sep = memchr(line, '|', (size_t)(eol - line));
    } else {
        sep = memchr(line, '\t', (size_t)(eol - line));
    }
    if (sep == NULL)
        return -1;
    *name = line;
    *name_end = sep;
    *value = sep + 1;
    *value_end = eol;
    trim(name, name_end, 1);
    trim(value, value_end, 1);
    return 1;
}

static int
parse_value(const char *v, const char *end, double *out)
{
    char buf[64], *stop;
    size_t n = (size_t)(end - v);

    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    *out = strtod(buf, &stop);
    return *stop == '\0' && isfinite(*out) ? 0 : -1;
}

static int
parse_line(struct my_sample *s, const char *line, const char *eol, int lineno, char *err)
{
    const char *name, *name_end, *value, *value_end;
    int k = split_line(line, eol, &name, &name_end, &value, &value_end);
    int var;

    if (k == 0)
        return 0;
    if (k < 0)
        return seterr(err, "line %d: no tab between a variable's name and value", lineno);
    var = find_status(name, (size_t)(name_end - name));
    if (var < 0)
        return 0; /* a header ("Variable_name") or a variable we do not show */
    if (parse_value(value, value_end, &s->status[var]) < 0)
        return seterr(err, "line %d: %s is not a number ('%.*s')", lineno, status_names[var],
                      (int)(value_end - value > 40 ? 40 : value_end - value), value);
    s->status_present |= (uint64_t)1 << var;
    return 0;
}

const char *
my_status_name(enum my_status_var v)
{
    return v >= 0 && v < MY_NSTATUS ? status_names[v] : "?";
}

int
my_status_parse(const char *text, struct my_sample *s, char *err)
{
    const char *line = text, *eol;
    int lineno = 1;

    if (text == NULL || *text == '\0')
        return seterr(err, "empty SHOW GLOBAL STATUS output");
    for (; *line != '\0'; line = eol + 1, lineno++) {
        eol = strchr(line, '\n');
        if (eol == NULL)
            return seterr(err, "line %d: cut off (no end of line)", lineno);
        if (parse_line(s, line, eol, lineno, err) < 0)
            return -1;
    }
    if (!present(s, MY_UPTIME))
        return seterr(err, "not SHOW GLOBAL STATUS output (it has no Uptime)");
    return 0;
}

static int
group_of(struct my_sample *s, const char *command, const char *state)
{
    struct my_proc_group *g;
    int i;

    for (i = 0; i < s->ngroups; i++)
        if (strcmp(s->groups[i].command, command) == 0 && strcmp(s->groups[i].state, state) == 0)
            return i;
    if (s->ngroups == MY_PROC_GROUPS)
        return -1;
    g = &s->groups[s->ngroups];
    snprintf(g->command, sizeof g->command, "%s", command);
    snprintf(g->state, sizeof g->state, "%s", state);
    return s->ngroups++;
}

void
my_proc_add(struct my_sample *s, const char *command, const char *state, double time_s,
            const char *info)
{
    int g;

    command = command ? command : "";
    state = state ? state : "";
    if (strcmp(command, "Daemon") == 0)
        return; /* the server's own threads (event scheduler, ...) */
    s->proc_total++;
    g = group_of(s, command, state);
    if (g < 0)
        s->proc_other++;
    else
        s->groups[g].count++;
    if ((strcmp(command, "Query") == 0 || strcmp(command, "Execute") == 0) && info != NULL &&
        time_s >= s->longest_s) {
        s->longest_s = time_s;
        snprintf(s->longest_info, sizeof s->longest_info, "%s", info);
    }
}

/*
 * Processlist states that are not on CPU, by what the session waits for:
 * our reading of MariaDB's "General Thread States" (and MySQL's, which
 * shares most names). Case is ignored; a state not listed (Sending data,
 * Updating, Searching rows for update, executing, Sorting result, ...)
 * runs on CPU, its page reads counted by Innodb_buffer_pool_reads.
 */
static const struct state_class {
    const char *state;
    enum my_state st;
} state_classes[] = {
    /* InnoDB's range estimates read index pages: "the server is probably disk-bound" */
    {"Statistics", MY_ST_READ},
    {"Copying to tmp table on disk", MY_ST_READ},
    {"converting HEAP to Aria", MY_ST_READ},
    {"converting HEAP to MyISAM", MY_ST_READ},
    {"converting HEAP to ondisk", MY_ST_READ},
    {"Creating sort index", MY_ST_CPU},
    {"Locked", MY_ST_LOCK},
    {"System lock", MY_ST_LOCK}, /* an internal or external lock on a table */
    {"Table lock", MY_ST_LOCK},
    {"User lock", MY_ST_LOCK},   /* GET_LOCK() */
    {"User sleep", MY_ST_SLEEP}, /* SLEEP(): a wait the statement asked for */
    {"Waiting for table flush", MY_ST_LOCK},
    {"Waiting for prior transaction to commit", MY_ST_COMMIT},
    {"Sending to client", MY_ST_OTHER}, /* writing the result: the network, the client */
    {"Writing to net", MY_ST_OTHER},
    {"Reading from net", MY_ST_OTHER},
    {"Opening tables", MY_ST_OTHER}, /* long only when the table cache is too small */
    {"Opening table", MY_ST_OTHER},
    {"closing tables", MY_ST_OTHER}, /* flushes changes; long only when the disk is full */
    {"Flushing tables", MY_ST_OTHER},
    /*
     * Not in the docs; seen on MariaDB 10.11 for autocommit updates of hot
     * rows, most sessions in it, and innodb_flush_log_at_trx_commit=2 gave
     * x1.9: the statement's end, where the commit's log flush is waited for.
     */
    {"Updating status", MY_ST_COMMIT},
    {"Waiting on cond", MY_ST_OTHER},
    {"Waiting for the next event in relay log", MY_ST_OTHER},
};

static enum my_state
state_lookup(const char *state)
{
    size_t i;

    for (i = 0; i < sizeof state_classes / sizeof state_classes[0]; i++)
        if (strcasecmp(state, state_classes[i].state) == 0)
            return state_classes[i].st;
    return MY_ST_CPU;
}

enum my_state
my_state_of(const char *command, const char *state, const char *trx_state)
{
    enum my_state st;

    command = command ? command : "";
    state = state ? state : "";
    trx_state = trx_state ? trx_state : "";
    if (strcmp(command, "Daemon") == 0 || strcmp(command, "Binlog Dump") == 0 ||
        strcmp(command, "Killed") == 0)
        return MY_ST_SKIP;
    if (strcmp(command, "Sleep") == 0 || strcmp(command, "Connect") == 0)
        return *trx_state ? MY_ST_IDLE_TX : MY_ST_IDLE;
    /* "Waiting for table metadata lock", "... table level lock", "... backup lock" */
    if (strcmp(trx_state, "LOCK WAIT") == 0 ||
        (strncasecmp(state, "Waiting for ", 12) == 0 && strcasestr(state, " lock") != NULL))
        return MY_ST_LOCK;
    st = state_lookup(state);
    if (st != MY_ST_CPU)
        return st;
    /* MariaDB "Commit", MySQL "waiting for handler commit", "Waiting for commit" */
    if (strcasestr(state, "commit") != NULL || strcmp(trx_state, "COMMITTING") == 0)
        return MY_ST_COMMIT;
    return strcmp(trx_state, "ROLLING BACK") == 0 ? MY_ST_OTHER : MY_ST_CPU;
}

enum lock_kind
my_lock_kind_of(const char *state, const char *trx_state)
{
    state = state ? state : "";
    if (trx_state != NULL && strcmp(trx_state, "LOCK WAIT") == 0)
        return LK_ROW;
    if (strcasestr(state, "metadata lock") != NULL)
        return LK_METADATA;
    if (strcasestr(state, "user lock") != NULL)
        return LK_ADVISORY; /* GET_LOCK() */
    if (strcasestr(state, "table level lock") != NULL || strcasecmp(state, "Table lock") == 0 ||
        strcasecmp(state, "Locked") == 0 || strcasecmp(state, "System lock") == 0)
        return LK_TABLE;
    return LK_UNKNOWN;
}

void
my_probe_add(struct coll_glances *p, enum my_state st, int ours)
{
    int active = st != MY_ST_SKIP && st != MY_ST_IDLE && st != MY_ST_IDLE_TX;
    /* the glances count data file reads among the commit's I/O, and apart in io */
    int io = st == MY_ST_COMMIT || st == MY_ST_READ;

    if (st == MY_ST_SKIP)
        return;
    p->all++;
    p->active += active;
    p->on_cpu += st == MY_ST_CPU;
    p->lock += st == MY_ST_LOCK;
    p->commit_io += io;
    p->io += st == MY_ST_READ;
    p->idle_tx += st == MY_ST_IDLE_TX;
    p->sleep += st == MY_ST_SLEEP;
    if (!ours)
        return;
    p->own++;
    p->own_active += active;
    p->own_lock += st == MY_ST_LOCK;
    p->own_commit_io += io;
    p->own_cpu += st == MY_ST_CPU;
    p->own_io += st == MY_ST_READ;
    p->own_sleep += st == MY_ST_SLEEP;
    p->own_idle += st == MY_ST_IDLE || st == MY_ST_IDLE_TX;
}

void
my_setting_set(struct my_sample *s, const char *name, const char *value)
{
    int i;

    if (name == NULL || value == NULL)
        return;
    for (i = 0; i < MY_NSETTINGS; i++) {
        if (strcasecmp(setting_names[i], name) != 0)
            continue;
        if (strcasecmp(value, "ON") == 0)
            s->setting[i] = 1;
        else if (strcasecmp(value, "OFF") == 0)
            s->setting[i] = 0;
        else
            s->setting[i] = strtod(value, NULL);
        s->settings_present |= 1u << i;
    }
}

/* ---- deriving rows (pure) ---- */

/* The variable that stands for v in cur: v itself, or its stand-in when only that is there. */
static enum my_status_var
source(const struct my_sample *cur, enum my_status_var v)
{
    size_t i;

    if (present(cur, v))
        return v;
    for (i = 0; i < sizeof alternates / sizeof alternates[0]; i++)
        if (alternates[i].var == v && present(cur, alternates[i].alt))
            return alternates[i].alt;
    return v;
}

/* 1 if v is a stand-in, or a counter whose stand-in is there: not worth a "missing" note. */
static int
covered(const struct my_sample *cur, enum my_status_var v)
{
    size_t i;

    /* MariaDB's alone: MySQL keeps the checkpoint age out of its status, nothing is missing */
    if (v == MY_CHECKPOINT_AGE || v == MY_CHECKPOINT_MAX)
        return 1;
    for (i = 0; i < sizeof alternates / sizeof alternates[0]; i++)
        if (alternates[i].alt == v || (alternates[i].var == v && present(cur, alternates[i].alt)))
            return 1;
    return 0;
}

/* The counter's increase per second, or NAN when it cannot be known. */
static double
rate(const struct my_sample *prev, const struct my_sample *cur, enum my_status_var v, double secs)
{
    v = source(cur, v);
    if (prev == NULL || !present(prev, v) || !present(cur, v))
        return NAN;
    return units_rate(prev->status[v], cur->status[v], 1, secs);
}

static void
missing_row(struct coll_view *v, const char *section, const char *label)
{
    coll_row_add(v, section, label, NAN, ROW_DIM, "n/a");
}

static void
rate_rows(struct coll_view *v, const char *section, const struct rate_row *rows, size_t n,
          const struct my_sample *prev, const struct my_sample *cur, double secs)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const struct rate_row *r = &rows[i];
        double x = rate(prev, cur, r->var, secs);
        if (!present(cur, source(cur, r->var)))
            missing_row(v, section, r->label);
        else if (isnan(x))
            coll_row_add(v, section, r->label, NAN, ROW_NORMAL, "-");
        else
            coll_row_add(v, section, r->label, x,
                         r->warn_above_zero && x > 0 ? ROW_WARN : ROW_NORMAL, "%.1f", x);
    }
}

static void
gauge_row(struct coll_view *v, const char *section, const char *label, const struct my_sample *s,
          enum my_status_var var, enum row_level level)
{
    if (!present(s, var))
        missing_row(v, section, label);
    else
        coll_row_add(v, section, label, s->status[var], level, "%.0f", s->status[var]);
}

/* The longest-running statement: its text is another session's, kept out of records. */
static void
longest_row(struct coll_view *v, const struct my_sample *s)
{
    char head[32];

    snprintf(head, sizeof head, "%.0f s ", s->longest_s);
    coll_row_sql(coll_row_add(v, "sessions", "longest query", s->longest_s,
                              s->proc_partial                  ? ROW_DIM
                              : s->longest_s >= LONGEST_BAD_S  ? ROW_BAD
                              : s->longest_s >= LONGEST_WARN_S ? ROW_WARN
                                                               : ROW_NORMAL,
                              "%s%s", head, s->longest_info),
                 strlen(head));
}

/* Connected sessions against max_connections: near the limit new clients get refused. */
static enum row_level
connected_level(const struct my_sample *s)
{
    double max = s->setting[MY_SET_MAX_CONN];

    if (!(s->settings_present & (1u << MY_SET_MAX_CONN)) || max <= 0)
        return ROW_NORMAL;
    if (s->status[MY_THREADS_CONNECTED] >= 0.9 * max)
        return ROW_BAD;
    return s->status[MY_THREADS_CONNECTED] >= 0.75 * max ? ROW_WARN : ROW_NORMAL;
}

static int
group_cmp(const void *a, const void *b)
{
    const struct my_proc_group *x = a, *y = b;

    return y->count - x->count;
}

static void
process_rows(struct coll_view *v, const struct my_sample *s)
{
    struct my_proc_group g[MY_PROC_GROUPS];
    enum row_level level = s->proc_partial ? ROW_DIM : ROW_NORMAL;
    int i;

    if (!s->proc_ok) {
        missing_row(v, "sessions", "processlist");
        return;
    }
    memcpy(g, s->groups, sizeof g);
    qsort(g, (size_t)s->ngroups, sizeof g[0], group_cmp);
    for (i = 0; i < s->ngroups; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s%s%s", g[i].command, g[i].state[0] ? ": " : "",
                 g[i].state);
        coll_row_add(v, "sessions", label, g[i].count, level, "%d", g[i].count);
    }
    if (s->proc_other > 0)
        coll_row_add(v, "sessions", "other", s->proc_other, level, "%d", s->proc_other);
    if (s->longest_info[0] == '\0')
        coll_row_add(v, "sessions", "longest query", 0, level, "-");
    else
        longest_row(v, s);
}

static void
session_rows(struct coll_view *v, const struct my_sample *prev, const struct my_sample *cur,
             double secs)
{
    static const struct rate_row rates[] = {
        {MY_CONNECTIONS, "connections/s", 0},
        {MY_ABORTED_CONNECTS, "aborted connects/s", 1},
        {MY_THREADS_CREATED, "threads created/s", 0},
    };

    gauge_row(v, "sessions", "connected", cur, MY_THREADS_CONNECTED, connected_level(cur));
    gauge_row(v, "sessions", "running", cur, MY_THREADS_RUNNING, ROW_NORMAL);
    rate_rows(v, "sessions", rates, sizeof rates / sizeof rates[0], prev, cur, secs);
    process_rows(v, cur);
}

/*
 * Buffer pool hit ratio over the interval (over the server's life for the
 * first sample): the share of page requests served without a disk read.
 */
static void
hit_row(struct coll_view *v, const struct my_sample *prev, const struct my_sample *cur)
{
    double req, reads, hit;

    if (!present(cur, MY_BP_READ_REQUESTS) || !present(cur, MY_BP_READS)) {
        missing_row(v, "innodb", "buffer pool hit %");
        return;
    }
    req = cur->status[MY_BP_READ_REQUESTS];
    reads = cur->status[MY_BP_READS];
    if (prev != NULL && present(prev, MY_BP_READ_REQUESTS) && present(prev, MY_BP_READS) &&
        req >= prev->status[MY_BP_READ_REQUESTS]) {
        req -= prev->status[MY_BP_READ_REQUESTS];
        reads -= prev->status[MY_BP_READS];
    }
    if (req <= 0) {
        coll_row_add(v, "innodb", "buffer pool hit %", NAN, ROW_NORMAL, "-");
        return;
    }
    hit = 100.0 * (1.0 - reads / req);
    coll_row_add(v, "innodb", "buffer pool hit %", hit,
                 hit >= 99   ? ROW_GOOD
                 : hit >= 90 ? ROW_WARN
                             : ROW_BAD,
                 "%.2f%%", hit); /* a ratio says it is one, as every other hit ratio */
}

/* Row lock time is in milliseconds: per wait it says how long a blocked statement stood. */
static void
lock_time_row(struct coll_view *v, const struct my_sample *prev, const struct my_sample *cur)
{
    double waits, ms;

    if (!present(cur, MY_ROW_LOCK_TIME) || !present(cur, MY_ROW_LOCK_WAITS)) {
        missing_row(v, "innodb", "row lock ms/wait");
        return;
    }
    if (prev == NULL || !present(prev, MY_ROW_LOCK_TIME) || !present(prev, MY_ROW_LOCK_WAITS)) {
        coll_row_add(v, "innodb", "row lock ms/wait", NAN, ROW_NORMAL, "-");
        return;
    }
    waits = cur->status[MY_ROW_LOCK_WAITS] - prev->status[MY_ROW_LOCK_WAITS];
    ms = cur->status[MY_ROW_LOCK_TIME] - prev->status[MY_ROW_LOCK_TIME];
    if (waits <= 0 || ms < 0) {
        coll_row_add(v, "innodb", "row lock ms/wait", 0, ROW_NORMAL, "-");
        return;
    }
    coll_row_add(v, "innodb", "row lock ms/wait", ms / waits, ROW_WARN, "%.1f", ms / waits);
}

static void
innodb_rows_add(struct coll_view *v, const struct my_sample *prev, const struct my_sample *cur,
                double secs)
{
    hit_row(v, prev, cur);
    rate_rows(v, "innodb", innodb_rows, sizeof innodb_rows / sizeof innodb_rows[0], prev, cur,
              secs);
    lock_time_row(v, prev, cur);
}

static int
has_setting(const struct my_sample *s, enum my_setting k)
{
    return (s->settings_present >> k) & 1;
}

static void
setting_rows(struct coll_view *v, const struct my_sample *s)
{
    double bp = s->setting[MY_SET_BUFFER_POOL], flush = s->setting[MY_SET_FLUSH_AT_TRX];
    double sync = s->setting[MY_SET_SYNC_BINLOG];
    int binlog = has_setting(s, MY_SET_LOG_BIN) && s->setting[MY_SET_LOG_BIN] != 0;

    coll_row_add(v, "settings", "version", NAN, s->version[0] ? ROW_NORMAL : ROW_DIM, "%s",
                 s->version[0] ? s->version : "n/a");
    if (has_setting(s, MY_SET_BUFFER_POOL))
        coll_row_add(v, "settings", "buffer pool", bp, ROW_NORMAL, "%.0f MiB", bp / 1048576.0);
    else
        missing_row(v, "settings", "buffer pool");
    /* Anything but 1 trades durability for speed: results do not compare with a durable setup. */
    if (has_setting(s, MY_SET_FLUSH_AT_TRX))
        coll_row_add(v, "settings", "flush log at commit", flush,
                     flush == 1 ? ROW_NORMAL : ROW_WARN, "%.0f", flush);
    else
        missing_row(v, "settings", "flush log at commit");
    if (!has_setting(s, MY_SET_SYNC_BINLOG))
        missing_row(v, "settings", "sync_binlog");
    else
        coll_row_add(v, "settings", "sync_binlog", sync,
                     binlog && sync != 1 ? ROW_WARN : ROW_NORMAL, "%.0f%s", sync,
                     binlog ? "" : " (binlog off)");
    if (has_setting(s, MY_SET_MAX_CONN))
        coll_row_add(v, "settings", "max connections", s->setting[MY_SET_MAX_CONN], ROW_NORMAL,
                     "%.0f", s->setting[MY_SET_MAX_CONN]);
    else
        missing_row(v, "settings", "max connections");
}

static void
write_note(struct coll_view *v, const struct my_sample *cur)
{
    size_t base, len;
    int i;

    if (cur->proc_partial) {
        snprintf(v->note, sizeof v->note,
                 "cannot see other sessions' state, query or lock waits: GRANT PROCESS ON *.* "
                 "TO %s",
                 cur->grantee[0] ? cur->grantee : "this user");
        return;
    }
    len = base = (size_t)snprintf(v->note, sizeof v->note, "not reported by this server: ");
    for (i = 0; i < MY_NSTATUS && len < sizeof v->note; i++)
        if (!present(cur, (enum my_status_var)i) && !covered(cur, (enum my_status_var)i))
            len += (size_t)snprintf(v->note + len, sizeof v->note - len, "%s%s",
                                    len > base ? ", " : "", status_names[i]);
    if (len == base)
        v->note[0] = '\0';
}

/*
 * The verdict's inputs: the glances' averages when there were any; else
 * Threads_running counts the sessions running a statement (our own SHOW
 * STATUS among them), row lock waits the ones blocked on rows, and the
 * rest of the running ones are taken to be on CPU.
 */
static void
my_signals(const struct my_sample *cur, struct coll_view *v)
{
    struct coll_signals *g = &v->sig;

    g->rtt_ms = cur->rtt_ms;
    if (cur->probed.n > 0) {
        coll_glances_signals(&cur->probed, g);
        return;
    }
    if (present(cur, MY_THREADS_CONNECTED))
        g->sessions = cur->status[MY_THREADS_CONNECTED] - 1;
    if (!present(cur, MY_THREADS_RUNNING))
        return;
    g->active = cur->status[MY_THREADS_RUNNING] > 1 ? cur->status[MY_THREADS_RUNNING] - 1 : 0;
    if (present(cur, MY_ROW_LOCK_CURRENT)) {
        g->lock_wait = cur->status[MY_ROW_LOCK_CURRENT];
        g->on_cpu = g->active > g->lock_wait ? g->active - g->lock_wait : 0;
    }
}

/*
 * The server's transactions/s: commits and rollbacks; when none moved, the
 * work is autocommit statements, each its own transaction, so the data
 * statements (select, insert, update, delete) count instead. A load mixing
 * both counts only its explicit transactions. NAN when unknown.
 */
static double
server_tps(const struct my_sample *prev, const struct my_sample *cur, double secs)
{
    static const enum my_status_var data[] = {MY_COM_SELECT, MY_COM_INSERT, MY_COM_UPDATE,
                                              MY_COM_DELETE};
    double tps = rate(prev, cur, MY_COM_COMMIT, secs) + rate(prev, cur, MY_COM_ROLLBACK, secs);
    double stmts = 0;
    size_t i;

    if (!(tps == 0))
        return tps; /* some transactions, or unknown */
    for (i = 0; i < sizeof data / sizeof data[0]; i++)
        stmts += rate(prev, cur, data[i], secs);
    return isnan(stmts) ? tps : stmts;
}

/*
 * The redo log's syncs per second: Innodb_os_log_fsyncs where the server
 * counts them; MariaDB 10.11 does not, but with
 * innodb_flush_log_at_trx_commit = 1 each of its log writes (group commit:
 * one for several transactions) is followed by a sync, so the writes count
 * the syncs. With 0 or 2 the log is synced once a second, off the commits.
 */
static double
log_syncs(const struct my_sample *prev, const struct my_sample *cur, double secs)
{
    if (present(cur, MY_LOG_FSYNCS))
        return rate(prev, cur, MY_LOG_FSYNCS, secs);
    if (has_setting(cur, MY_SET_FLUSH_AT_TRX) && cur->setting[MY_SET_FLUSH_AT_TRX] == 1)
        return rate(prev, cur, MY_LOG_WRITES, secs);
    return NAN;
}

/* The buffer pool over the interval: pages read from disk per second, and its hit ratio. */
static void
pool_signals(const struct my_sample *prev, const struct my_sample *cur, double secs,
             struct coll_signals *g)
{
    double req = rate(prev, cur, MY_BP_READ_REQUESTS, secs);

    g->disk_reads_s = rate(prev, cur, MY_BP_READS, secs);
    if (req > 0 && !isnan(g->disk_reads_s))
        g->hit_ratio = fmax(0, 1 - g->disk_reads_s / req);
    snprintf(g->mem_limit_setting, sizeof g->mem_limit_setting, "innodb_buffer_pool_size");
    /*
     * Free pages in a pool not yet filled (a cold start); the page cleaner
     * keeps up to innodb_lru_scan_depth (1024) pages free in a full one.
     */
    if (present(cur, MY_BP_PAGES_FREE) && present(cur, MY_BP_PAGES_TOTAL) &&
        cur->status[MY_BP_PAGES_TOTAL] > 0)
        g->pool_fill = cur->status[MY_BP_PAGES_FREE] <= 2048
                           ? 1
                           : 1 - (double)cur->status[MY_BP_PAGES_FREE] /
                                     (double)cur->status[MY_BP_PAGES_TOTAL];
}

/*
 * Other sessions' transactions that benchtop's sessions waited on through
 * a lock chain: the share of benchtop's session time spent so.
 */
static void
stall_signals(const struct my_sample *cur, struct coll_signals *g)
{
    const struct coll_glances *p = &cur->probed;

    if (p->n == 0 || !p->own_known || p->roots == 0)
        return;
    g->other_stall_share = p->own > 0 ? fmin(cur->stall_own / p->own, 1) : 0;
    snprintf(g->other_stall_what, sizeof g->other_stall_what, "%s", cur->stall_what);
    g->other_stall_sql_at = lock_what_sql_at(g->other_stall_what);
}

/*
 * What makes a commit cheaper: InnoDB's redo log sync at every commit
 * (innodb_flush_log_at_trx_commit = 1) and, with the binary log on, its own
 * sync (sync_binlog = 1). Both sync each commit: relieving one leaves the
 * other (field trial 3, C5: flush = 2 alone -16%, both +31%).
 */
static void
commit_advice(const struct my_sample *cur, struct coll_signals *g)
{
    int flush = has_setting(cur, MY_SET_FLUSH_AT_TRX) && cur->setting[MY_SET_FLUSH_AT_TRX] == 1;
    int binlog = has_setting(cur, MY_SET_LOG_BIN) && cur->setting[MY_SET_LOG_BIN] != 0 &&
                 has_setting(cur, MY_SET_SYNC_BINLOG) && cur->setting[MY_SET_SYNC_BINLOG] == 1;

    if (flush && binlog)
        snprintf(g->commit_advice, sizeof g->commit_advice,
                 "innodb_flush_log_at_trx_commit = 2 and sync_binlog = 0 (both sync)");
    else if (flush)
        snprintf(g->commit_advice, sizeof g->commit_advice, "innodb_flush_log_at_trx_commit = 2");
    else if (binlog)
        snprintf(g->commit_advice, sizeof g->commit_advice,
                 "sync_binlog = 0 (the binary log syncs every commit)");
    if (flush)
        snprintf(g->commit_try, sizeof g->commit_try, "innodb_flush_log_at_trx_commit=2");
    else if (binlog)
        snprintf(g->commit_try, sizeof g->commit_try, "sync_binlog=0");
}

/*
 * The redo log's room: the checkpoint age (redo not yet flushed to the
 * data files) against the most it may reach. Near it, InnoDB flushes
 * pages synchronously and every write waits: the log's size is the limit.
 * MariaDB counts both; MySQL has neither in its status (NAN).
 */
static void
redo_signals(const struct my_sample *cur, struct coll_signals *g)
{
    if (present(cur, MY_CHECKPOINT_AGE) && present(cur, MY_CHECKPOINT_MAX) &&
        cur->status[MY_CHECKPOINT_MAX] > 0)
        g->redo_fill = fmin(
            (double)cur->status[MY_CHECKPOINT_AGE] / (double)cur->status[MY_CHECKPOINT_MAX], 1);
    snprintf(g->redo_setting, sizeof g->redo_setting, "innodb_log_file_size");
}

/* Commits against the log's fsyncs, and the rows and pages each transaction reads. */
static void
my_work_signals(const struct my_sample *prev, const struct my_sample *cur, double secs,
                struct coll_view *v)
{
    struct coll_signals *g = &v->sig;
    double tps = v->server_tps;

    g->commits_s = tps;
    g->log_syncs_s = log_syncs(prev, cur, secs);
    pool_signals(prev, cur, secs, g);
    if (tps > 0) {
        g->rows_per_txn = rate(prev, cur, MY_ROWS_READ, secs) / tps;
        g->blocks_per_txn = rate(prev, cur, MY_BP_READ_REQUESTS, secs) / tps;
    }
    if (has_setting(cur, MY_SET_MAX_CONN))
        g->max_sessions = cur->setting[MY_SET_MAX_CONN];
    commit_advice(cur, g);
    redo_signals(cur, g);
}

/*
 * Row lock waits by their time: Innodb_row_lock_time's delta over the
 * interval is the average number of sessions blocked on rows. The glances
 * miss short waits: MariaDB refreshes INNODB_TRX at most every 0.1 s, so a
 * transaction of a connection opened since (a PHP page's) is seen waiting
 * with no trx_state and taken to be on CPU. When the time says more
 * sessions waited than the glances saw, those are moved from CPU to locks.
 */
static void
lock_time_signal(const struct my_sample *prev, const struct my_sample *cur, double secs,
                 struct coll_signals *g)
{
    double waited, moved, own_cpu;

    if (prev == NULL || !(secs > 0) || cur->probed.n == 0 || !present(cur, MY_ROW_LOCK_TIME) ||
        !present(prev, MY_ROW_LOCK_TIME) || isnan(g->lock_wait) || isnan(g->on_cpu))
        return;
    waited = (cur->status[MY_ROW_LOCK_TIME] - prev->status[MY_ROW_LOCK_TIME]) / (secs * 1000.0);
    if (!(waited > g->lock_wait))
        return;
    moved = fmin(waited - g->lock_wait, g->on_cpu);
    /*
     * The time is server-wide: benchtop's sessions take their share of
     * the sessions on CPU, else a counter load that was all benchtop's
     * showed "other sessions: 3 waiting on locks".
     */
    own_cpu = g->own_on_cpu;
    if (own_cpu > 0 && g->on_cpu > 0) {
        g->own_lock_wait += moved * fmin(own_cpu / g->on_cpu, 1);
        g->own_on_cpu = fmax(0, g->own_on_cpu - moved * fmin(own_cpu / g->on_cpu, 1));
    }
    g->lock_wait += moved;
    g->on_cpu -= moved;
}

void
my_derive(const struct my_sample *prev, const struct my_sample *cur, double secs,
          struct coll_view *view)
{
    coll_view_reset(view);
    my_signals(cur, view);
    if (prev != NULL && present(prev, MY_UPTIME) && present(cur, MY_UPTIME) &&
        cur->status[MY_UPTIME] < prev->status[MY_UPTIME]) {
        coll_event_add(view, "server restarted (up %.0f s)", cur->status[MY_UPTIME]);
        prev = NULL; /* counters started again from zero: no rates this time */
    }
    lock_time_signal(prev, cur, secs, &view->sig);
    stall_signals(cur, &view->sig);
    rate_rows(view, "queries", query_rows, sizeof query_rows / sizeof query_rows[0], prev, cur,
              secs);
    session_rows(view, prev, cur, secs);
    innodb_rows_add(view, prev, cur, secs);
    setting_rows(view, cur);
    view->server_tps = server_tps(prev, cur, secs);
    my_work_signals(prev, cur, secs, view);
    write_note(view, cur);
}

/* ---- the collector's connection (its own thread; blocking) ---- */

static void *
my_coll_open(const struct target *target, char *err)
{
    struct my_coll *c = xcalloc(1, sizeof *c);
    MYSQL_RES *res;
    MYSQL_ROW row;

    /* a frozen server fails the sample after IO_TIMEOUT_S instead of holding it forever */
    if (my_connect_timed(target->parsed, IO_TIMEOUT_S, &c->m, err) < 0) {
        free(c);
        return NULL;
    }
    c->own_id = mysql_thread_id(c->m);
    c->ids = xmalloc(OWNIDS_MAX * sizeof(c->ids[0]));
    snprintf(c->version, sizeof c->version, "%s", mysql_get_server_info(c->m));
    /* Privileges rarely change during a run: asked once per connection. */
    if (mysql_query(c->m, process_sql) == 0 && (res = mysql_store_result(c->m)) != NULL) {
        row = mysql_fetch_row(res);
        c->has_process = row != NULL && row[0] != NULL && atoi(row[0]) > 0;
        if (row != NULL && row[1] != NULL)
            snprintf(c->grantee, sizeof c->grantee, "%s", row[1]);
        mysql_free_result(res);
    }
    return c;
}

static void
my_coll_close(void *conn)
{
    struct my_coll *c = conn;

    mysql_close(c->m);
    free(c->ids);
    free(c->trx);
    free(c);
}

/* The status result set as batch-mode text ("name\tvalue\n"), for my_status_parse. */
static char *
status_text(MYSQL_RES *res)
{
    size_t cap = 32768, len = 0;
    char *text = xmalloc(cap);
    MYSQL_ROW row;

    while ((row = mysql_fetch_row(res)) != NULL) {
        const char *name = row[0] ? row[0] : "", *value = row[1] ? row[1] : "";
        size_t need = strlen(name) + strlen(value) + 3;
        if (len + need >= cap) {
            cap = 2 * (len + need);
            text = xrealloc(text, cap);
        }
        len += (size_t)sprintf(text + len, "%s\t%s\n", name, value);
    }
    text[len] = '\0';
    return text;
}

static int
sample_status(struct my_coll *c, struct my_sample *s, char *err)
{
    MYSQL_RES *res;
    char *text;
    int rc;

    if (mysql_query(c->m, "SHOW GLOBAL STATUS") != 0 || (res = mysql_store_result(c->m)) == NULL)
        return my_sql_error(c->m, "read", "SHOW GLOBAL STATUS", err);
    text = status_text(res);
    mysql_free_result(res);
    rc = my_status_parse(text, s, err);
    free(text);
    return rc;
}

/* Settings are nice to have: a failure (an old server) only dims their rows. */
static int
sample_settings(struct my_coll *c, struct my_sample *s, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;

    if (mysql_query(c->m, settings_sql) != 0 || (res = mysql_store_result(c->m)) == NULL)
        return my_error_is_conn_lost(mysql_errno(c->m))
                   ? my_sql_error(c->m, "read", "the settings", err)
                   : 0;
    while ((row = mysql_fetch_row(res)) != NULL)
        my_setting_set(s, row[0], row[1]);
    mysql_free_result(res);
    return 0;
}

/* The columns of SHOW FULL PROCESSLIST by name: MariaDB adds some, MySQL may reorder. */
struct proc_cols {
    int id, command, time, state, info;
};

static void
find_cols(MYSQL_RES *res, struct proc_cols *pc)
{
    MYSQL_FIELD *f = mysql_fetch_fields(res);
    unsigned i, n = mysql_num_fields(res);

    *pc = (struct proc_cols){-1, -1, -1, -1, -1};
    for (i = 0; i < n; i++) {
        if (strcasecmp(f[i].name, "Id") == 0)
            pc->id = (int)i;
        else if (strcasecmp(f[i].name, "Command") == 0)
            pc->command = (int)i;
        else if (strcasecmp(f[i].name, "Time") == 0)
            pc->time = (int)i;
        else if (strcasecmp(f[i].name, "State") == 0)
            pc->state = (int)i;
        else if (strcasecmp(f[i].name, "Info") == 0)
            pc->info = (int)i;
    }
}

static const char *
col(MYSQL_ROW row, int i)
{
    return i >= 0 ? row[i] : NULL;
}

static int
sample_processlist(struct my_coll *c, struct my_sample *s, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    struct proc_cols pc;

    if (mysql_query(c->m, "SHOW FULL PROCESSLIST") != 0 || (res = mysql_store_result(c->m)) == NULL)
        return my_error_is_conn_lost(mysql_errno(c->m))
                   ? my_sql_error(c->m, "read", "the processlist", err)
                   : 0;
    find_cols(res, &pc);
    while ((row = mysql_fetch_row(res)) != NULL) {
        const char *id = col(row, pc.id), *t = col(row, pc.time);
        if (id != NULL && strtoul(id, NULL, 10) == c->own_id)
            continue;
        my_proc_add(s, col(row, pc.command), col(row, pc.state), t ? strtod(t, NULL) : 0,
                    col(row, pc.info));
    }
    mysql_free_result(res);
    s->proc_ok = 1;
    s->proc_partial = !c->has_process;
    memcpy(s->grantee, c->grantee, sizeof s->grantee);
    return 0;
}

static int
trx_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct my_trx *)a)->id, y = ((const struct my_trx *)b)->id;

    return (x > y) - (x < y);
}

static void
trx_take(struct my_coll *c, MYSQL_ROW row)
{
    struct my_trx *t;

    c->trx = xgrow(c->trx, c->ntrx, &c->trx_cap, sizeof(*c->trx));
    t = &c->trx[c->ntrx++];
    memset(t, 0, sizeof *t);
    t->id = row[0] ? strtoull(row[0], NULL, 10) : 0;
    snprintf(t->state, sizeof t->state, "%s", row[1] ? row[1] : "");
    t->trx_id = row[2] ? strtoull(row[2], NULL, 10) : 0;
    t->age_s = row[3] ? strtod(row[3], NULL) : 0;
    snprintf(t->query, sizeof t->query, "%s", row[4] ? row[4] : "");
    c->waits += strcmp(t->state, "LOCK WAIT") == 0;
}

/* The session that runs transaction trx_id, or 0. */
static uint64_t
trx_session(const struct my_coll *c, uint64_t trx_id)
{
    for (int i = 0; i < c->ntrx; i++)
        if (c->trx[i].trx_id == trx_id)
            return c->trx[i].id;
    return 0;
}

static struct my_trx *
trx_find(const struct my_coll *c, uint64_t id)
{
    struct my_trx key = {.id = id};

    if (c->ntrx == 0)
        return NULL;
    return bsearch(&key, c->trx, (size_t)c->ntrx, sizeof(key), trx_cmp);
}

/* Each waiting transaction's blocker, from INNODB_LOCK_WAITS (c->trx sorted). 0, or -1 with err. */
static int
probe_blockers(struct my_coll *c, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;

    if (c->waits == 0 || c->no_lock_waits)
        return 0;
    if (mysql_query(c->m, lock_waits_sql) != 0 || (res = mysql_store_result(c->m)) == NULL) {
        if (my_error_is_conn_lost(mysql_errno(c->m)))
            return my_sql_error(c->m, "read", "the lock waits", err);
        c->no_lock_waits = 1; /* no such table here: not asked again */
        return 0;
    }
    while ((row = mysql_fetch_row(res)) != NULL) {
        struct my_trx *w = trx_find(c, trx_session(c, row[0] ? strtoull(row[0], NULL, 10) : 0));

        if (w != NULL && w->blocker == 0)
            w->blocker = trx_session(c, row[1] ? strtoull(row[1], NULL, 10) : 0);
    }
    mysql_free_result(res);
    return 0;
}

/* INNODB_TRX's transactions into c->trx, sorted by session, with their blockers. */
static int
probe_trx(struct my_coll *c, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;

    c->ntrx = c->waits = 0;
    if (!c->has_process)
        return 0; /* without PROCESS it shows only our own connection's */
    if (mysql_query(c->m, probe_trx_sql) != 0 || (res = mysql_store_result(c->m)) == NULL)
        return my_sql_error(c->m, "read", "the sessions' transactions", err);
    while ((row = mysql_fetch_row(res)) != NULL)
        trx_take(c, row);
    mysql_free_result(res);
    if (c->ntrx > 1) /* none read: c->trx may still be NULL, and qsort(NULL, 0) is undefined */
        qsort(c->trx, (size_t)c->ntrx, sizeof(*c->trx), trx_cmp);
    return probe_blockers(c, err);
}

/* A session in a transaction, as a link of the lock chains. */
static void
chain_add(struct my_coll *c, const struct my_trx *t, enum my_state st, int ours)
{
    struct lock_node *n;

    if (c->nchain == MY_CHAIN_MAX)
        return;
    n = &c->chain[c->nchain++];
    n->id = t->id;
    n->ours = ours;
    n->idle = st == MY_ST_IDLE_TX;
    n->commit = st == MY_ST_COMMIT;
    n->blocker = st == MY_ST_LOCK ? t->blocker : 0;
    n->handoff = 0; /* InnoDB names every waiter's blocker, or the holder is linked later */
    n->running_s = t->age_s;
    snprintf(n->query, sizeof n->query, "%s", t->query);
}

/*
 * A metadata lock's holder, which MariaDB names only with a plugin: the
 * longest-running other session that is not waiting itself and is busy or
 * in a transaction (LOCK TABLES, an ALTER, an open transaction on the
 * table). Its waiters of benchtop's are linked to it, so that the chains
 * call them stalled by it, with its id and statement (a LOCK TABLES ...
 * WRITE said only "DDL, or a long transaction on the table, holds it").
 */
struct mdl_guess {
    uint64_t waiters[MY_CHAIN_MAX];
    int nwaiters;
    struct lock_node holder; /* id 0: none seen */
    int holder_linked;       /* the holder is in the chains already (its InnoDB transaction) */
};

static void
mdl_note(struct mdl_guess *g, MYSQL_ROW row, const struct proc_cols *pc, uint64_t id,
         enum my_state st, int ours, int in_chain)
{
    const char *state = col(row, pc->state), *time = col(row, pc->time);
    double age = time ? atof(time) : 0;

    if (st == MY_ST_LOCK && ours && my_lock_kind_of(state, NULL) == LK_METADATA) {
        if (g->nwaiters < MY_CHAIN_MAX)
            g->waiters[g->nwaiters++] = id;
        return;
    }
    if (ours || st == MY_ST_LOCK || st == MY_ST_SKIP || st == MY_ST_IDLE ||
        (g->holder.id != 0 && age <= g->holder.running_s))
        return;
    g->holder = (struct lock_node){.id = id, .idle = st == MY_ST_IDLE_TX, .running_s = age};
    g->holder_linked = in_chain;
    text_clean(g->holder.query, sizeof g->holder.query,
               col(row, pc->info) ? col(row, pc->info) : "");
}

static void
mdl_link(struct my_coll *c, const struct mdl_guess *g)
{
    if (g->nwaiters == 0 || g->holder.id == 0 || c->nchain + 1 >= MY_CHAIN_MAX)
        return;
    if (!g->holder_linked)
        c->chain[c->nchain++] = g->holder;
    for (int i = 0; i < g->nwaiters; i++) {
        struct lock_node *n = NULL;

        for (int k = 0; k < c->nchain && n == NULL; k++)
            n = c->chain[k].id == g->waiters[i] ? &c->chain[k] : NULL;
        if (n == NULL && c->nchain < MY_CHAIN_MAX)
            n = &c->chain[c->nchain++];
        if (n == NULL)
            break;
        if (n->id != g->waiters[i])
            *n = (struct lock_node){.id = g->waiters[i], .ours = 1};
        n->blocker = n->blocker ? n->blocker : g->holder.id;
    }
    c->waits += g->nwaiters;
}

/* The glance's lock waiters by their chains' roots, when INNODB_LOCK_WAITS said who blocks. */
static void
chains_count(struct my_coll *c, int mdl_waits)
{
    struct lock_roots r;

    if ((c->no_lock_waits && mdl_waits == 0) || !c->has_process)
        return;
    c->probed.roots++;
    if (c->waits == 0)
        return;
    lock_roots(c->chain, c->nchain, &r);
    lock_roots_add(&r, &c->probed, &c->stall_own, c->stall_what, sizeof c->stall_what);
}

/* A glance at the sessions: each one's state, and whether it is one of benchtop's connections. */
static int
my_coll_probe(void *conn, char *err)
{
    struct my_coll *c = conn;
    int nids = ownids_copy(c->ids, OWNIDS_MAX);
    struct proc_cols pc;
    struct mdl_guess mdl = {.nwaiters = 0};
    MYSQL_RES *res;
    MYSQL_ROW row;

    if (probe_trx(c, err) < 0)
        return -1;
    if (mysql_query(c->m, "SHOW FULL PROCESSLIST") != 0 || (res = mysql_store_result(c->m)) == NULL)
        return my_sql_error(c->m, "read", "the sessions' states", err);
    find_cols(res, &pc);
    c->nchain = 0;
    while ((row = mysql_fetch_row(res)) != NULL) {
        const char *ids = col(row, pc.id);
        uint64_t id = ids ? strtoull(ids, NULL, 10) : 0;
        const struct my_trx *t = trx_find(c, id);
        enum my_state st;
        int ours;

        if (id == c->own_id)
            continue;
        st = my_state_of(col(row, pc.command), col(row, pc.state), t ? t->state : NULL);
        ours = ownids_has(c->ids, nids, id);
        my_probe_add(&c->probed, st, ours);
        if (st == MY_ST_LOCK)
            c->probed.lock_kinds[my_lock_kind_of(col(row, pc.state), t ? t->state : NULL)]++;
        if (t != NULL)
            chain_add(c, t, st, ours);
        mdl_note(&mdl, row, &pc, id, st, ours, t != NULL);
    }
    mysql_free_result(res);
    mdl_link(c, &mdl);
    chains_count(c, mdl.holder.id != 0 ? mdl.nwaiters : 0);
    /* benchtop's sessions are the registered ones (none in watch, or before connecting) */
    c->probed.own_known = (c->probed.n == 0 || c->probed.own_known) && nids >= 0;
    c->probed.n++;
    return 0;
}

static int
my_coll_sample(void *conn, void *out, char *err)
{
    struct my_coll *c = conn;
    struct my_sample *s = out;

    uint64_t t0 = now_us();

    /* every sample has at least one glance: the first one, or after a slow sample */
    if (c->probed.n == 0 && my_coll_probe(c, err) < 0)
        return -1;
    s->probed = c->probed;
    s->stall_own = c->stall_own;
    snprintf(s->stall_what, sizeof s->stall_what, "%s", c->stall_what);
    memset(&c->probed, 0, sizeof c->probed);
    c->stall_own = 0;
    c->stall_what[0] = '\0';
    /* a ping: the network and protocol cost, for the verdict */
    if (mysql_ping(c->m) != 0)
        return seterr(err, "lost the connection to the server: %s", mysql_error(c->m));
    s->rtt_ms = (double)(now_us() - t0) / 1000.0;
    snprintf(s->version, sizeof s->version, "%s", c->version);
    s->is_mariadb = strstr(c->version, "MariaDB") != NULL;
    if (sample_status(c, s, err) < 0 || sample_settings(c, s, err) < 0 ||
        sample_processlist(c, s, err) < 0)
        return -1;
    return 0;
}

static void
my_coll_derive(const void *prev, const void *cur, double secs, struct coll_view *view)
{
    my_derive(prev, cur, secs, view);
}

static int
my_coll_settings(void *conn, struct coll_settings *out, char *err)
{
    return my_settings_read(((struct my_coll *)conn)->m, out, err);
}

static int
my_coll_apply(void *conn, const char *name, const char *value, char *err)
{
    return my_settings_apply(((struct my_coll *)conn)->m, name, value, err);
}

static char *
my_coll_undo_value(void *conn, const char *name, char *err)
{
    return my_settings_undo_value(((struct my_coll *)conn)->m, name, err);
}

static int
my_coll_try_lock(void *conn, const char *token, int renew, char *holder, size_t len, char *err)
{
    return my_settings_try_lock(((struct my_coll *)conn)->m, holder, len, err);
}

static void
my_coll_try_unlock(void *conn, const char *token)
{
    my_settings_try_unlock(((struct my_coll *)conn)->m);
}

static int
my_coll_identity(void *conn, char *buf, size_t len, char *err)
{
    return my_settings_identity(((struct my_coll *)conn)->m, buf, len, err);
}

static int
my_coll_sessions(void *conn, struct coll_sessions *out, char *err)
{
    struct my_coll *c = conn;

    return my_sessions_read(c->m, c->ids, out, err);
}

static int
my_coll_kill(void *conn, const char *id, int terminate, char *err)
{
    return my_sessions_kill(((struct my_coll *)conn)->m, id, terminate, err);
}

static int
my_coll_statements(void *conn, struct coll_statements *out, char *err)
{
    return my_statements_read(((struct my_coll *)conn)->m, out, err);
}

const struct collector_class mysql_collector_class = {
    .name = "mysql",
    .title = "MySQL",
    .sample_size = sizeof(struct my_sample),
    .open = my_coll_open,
    .close = my_coll_close,
    .sample = my_coll_sample,
    .probe = my_coll_probe,
    .probe_hz = 15,
    .derive = my_coll_derive,
    .read_settings = my_coll_settings,
    .apply_setting = my_coll_apply,
    .undo_value = my_coll_undo_value,
    .try_lock = my_coll_try_lock,
    .try_unlock = my_coll_try_unlock,
    .identity = my_coll_identity,
    .sessions = my_coll_sessions,
    .statements = my_coll_statements,
    .kill = my_coll_kill,
};
