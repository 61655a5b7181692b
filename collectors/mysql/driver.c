/*
 * mysql/driver: the MySQL / MariaDB load driver, on MariaDB Connector/C's
 * non-blocking API (mysql_*_start / mysql_*_cont).
 *
 * The built-in workloads are sysbench 1.0's OLTP scripts, statement for
 * statement, on the tables `benchtop init` makes (sbtest1..N), so results
 * compare with sysbench on the same data; `counter` is the hot-row counter
 * of the seed documents (UPDATE a row +1 and read it back, in one
 * transaction). Ids are drawn uniformly unless --rand-type says otherwise (rand.h).
 *
 * A transaction is a fixed list of operations (struct my_op). Each
 * operation is one statement, sent as text with the values in it (-M text)
 * or executed as a server-side prepared statement (-M prepared; prepared
 * once per connection and table on first use, as sysbench does). BEGIN and
 * COMMIT are always sent as text.
 *
 * Waiting: the library says what it waits for as MYSQL_WAIT_* bits; READ
 * and WRITE become DRV_WANT_READ / DRV_WANT_WRITE on the connection's
 * socket. No timeout is set on worker connections (a client timeout would
 * need a timer the engine does not give drivers), so the library never asks
 * for MYSQL_WAIT_TIMEOUT alone; should it come with READ, it is waited for
 * as READ, and a dead peer is left to TCP and the server's wait_timeout.
 *
 * Errors: 1213 (deadlock) counts as ERR_DEADLOCK, a lost connection (the
 * client's 2xxx errors, server shutdown, killed) as DRV_ERROR, everything
 * else (1205 lock wait timeout included) as ERR_OTHER. After an error inside
 * BEGIN..COMMIT the driver sends ROLLBACK before the next transaction.
 */
#include "config.h"

#include "conn.h"

#include <errmsg.h>
#include <math.h>
#include <mysqld_error.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jobthread.h"
#include "engine/mix.h"
#include "base/ownids.h"
#include "engine/optdef.h"
#include "engine/runconf.h"

/* The values a statement takes, in placeholder order; V_END ends the list. */
enum my_val { V_END, V_ID, V_ID_END, V_K, V_C, V_PAD };

/*
 * sysbench's statements. In sql, '#' stands for the table number and '?'
 * for a value; text mode writes the values in, prepared mode keeps the '?'.
 */
static const struct my_stmt_def {
    const char *sql;
    enum my_val vals[5];
} stmt_defs[ST__COUNT] = {
    [ST_BEGIN] = {"BEGIN", {V_END}},
    [ST_COMMIT] = {"COMMIT", {V_END}},
    [ST_POINT] = {"SELECT c FROM sbtest# WHERE id=?", {V_ID}},
    [ST_SIMPLE_RANGE] = {"SELECT c FROM sbtest# WHERE id BETWEEN ? AND ?", {V_ID, V_ID_END}},
    [ST_SUM_RANGE] = {"SELECT SUM(k) FROM sbtest# WHERE id BETWEEN ? AND ?", {V_ID, V_ID_END}},
    [ST_ORDER_RANGE] = {"SELECT c FROM sbtest# WHERE id BETWEEN ? AND ? ORDER BY c",
                        {V_ID, V_ID_END}},
    [ST_DISTINCT_RANGE] = {"SELECT DISTINCT c FROM sbtest# WHERE id BETWEEN ? AND ? ORDER BY c",
                           {V_ID, V_ID_END}},
    [ST_INDEX_UPDATE] = {"UPDATE sbtest# SET k=k+1 WHERE id=?", {V_ID}},
    [ST_NON_INDEX_UPDATE] = {"UPDATE sbtest# SET c=? WHERE id=?", {V_C, V_ID}},
    [ST_DELETE] = {"DELETE FROM sbtest# WHERE id=?", {V_ID}},
    [ST_INSERT] = {"INSERT INTO sbtest# (id, k, c, pad) VALUES (?, ?, ?, ?)",
                   {V_ID, V_K, V_C, V_PAD}},
    [ST_INSERT_AUTO] = {"INSERT INTO sbtest# (k, c, pad) VALUES (?, ?, ?)", {V_K, V_C, V_PAD}},
    [ST_COUNTER_UPDATE] = {"UPDATE " MY_COUNTER_TABLE " SET n=n+1 WHERE id=1", {V_END}},
    [ST_COUNTER_SELECT] = {"SELECT n FROM " MY_COUNTER_TABLE " WHERE id=1", {V_END}},
};

/* One operation of a workload: a statement, on a newly drawn table or the previous one. */
struct my_op {
    enum my_stmt st;
    int new_table;
};

/*
 * sysbench: 10 point selects on one table; each range query, update and
 * delete on a table of its own; the INSERT puts back the deleted id.
 * (Kept as rows of four: clang-format would give each entry a line.)
 */
/* clang-format off */
static const struct my_op w_point_select[] = {{ST_POINT, 1}};
static const struct my_op w_read_only[] = {
    {ST_BEGIN, 0},
    {ST_POINT, 1}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0},
    {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0},
    {ST_SIMPLE_RANGE, 1}, {ST_SUM_RANGE, 1}, {ST_ORDER_RANGE, 1}, {ST_DISTINCT_RANGE, 1},
    {ST_COMMIT, 0},
};
static const struct my_op w_read_write[] = {
    {ST_BEGIN, 0},
    {ST_POINT, 1}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0},
    {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0}, {ST_POINT, 0},
    {ST_SIMPLE_RANGE, 1}, {ST_SUM_RANGE, 1}, {ST_ORDER_RANGE, 1}, {ST_DISTINCT_RANGE, 1},
    {ST_INDEX_UPDATE, 1}, {ST_NON_INDEX_UPDATE, 1}, {ST_DELETE, 1}, {ST_INSERT, 0},
    {ST_COMMIT, 0},
};
static const struct my_op w_write_only[] = {
    {ST_BEGIN, 0},
    {ST_INDEX_UPDATE, 1}, {ST_NON_INDEX_UPDATE, 1}, {ST_DELETE, 1}, {ST_INSERT, 0},
    {ST_COMMIT, 0},
};
static const struct my_op w_counter[] = {
    {ST_BEGIN, 0}, {ST_COUNTER_UPDATE, 0}, {ST_COUNTER_SELECT, 0}, {ST_COMMIT, 0},
};
static const struct my_op w_insert[] = {{ST_INSERT_AUTO, 1}};
/* clang-format on */

static const struct my_workload {
    const char *name;
    const struct my_op *ops;
    int nops;
    int uses_sbtest;
} workloads[] = {
    {"point-select", w_point_select, 1, 1},
    {"read-only", w_read_only, sizeof w_read_only / sizeof w_read_only[0], 1},
    {"read-write", w_read_write, sizeof w_read_write / sizeof w_read_write[0], 1},
    {"write-only", w_write_only, sizeof w_write_only / sizeof w_write_only[0], 1},
    {"counter", w_counter, sizeof w_counter / sizeof w_counter[0], 0},
    {"insert", w_insert, 1, 1},
};

enum { N_WORKLOADS = sizeof workloads / sizeof workloads[0] };

static const char *const my_schemes[] = {"mysql://", "mariadb://", NULL};
static const char *const my_workloads[] = {"point-select", "read-only", "read-write", "write-only",
                                           "counter",      "insert",    NULL};
static const char *const my_modes[] = {"prepared", "text", NULL}; /* sysbench's default first */

/* sysbench's range_size: range queries cover id .. id + 99. */
enum { RANGE_SIZE = 100 };

/* The variables a -f script has without \set. */
static const char *const my_predef[] = {"client_id", "tables", "table_size", NULL};

/* ---- writing statements ---- */

static char *
put_int(char *dst, int64_t v)
{
    char tmp[24];
    const char *d = i64_dec(v, tmp);
    size_t n = strlen(d);

    memcpy(dst, d, n);
    return dst + n;
}

static char *
put_quoted(char *dst, const char *s, size_t len)
{
    *dst++ = '\'';
    memcpy(dst, s, len);
    dst += len;
    *dst++ = '\'';
    return dst;
}

static char *
put_value(char *dst, const struct my_values *v, enum my_val which)
{
    switch (which) {
    case V_ID:
        return put_int(dst, v->id);
    case V_ID_END:
        return put_int(dst, v->id_end);
    case V_K:
        return put_int(dst, v->k);
    case V_C:
        return put_quoted(dst, v->c, sizeof v->c);
    case V_PAD:
        return put_quoted(dst, v->pad, sizeof v->pad);
    case V_END:
        break;
    }
    return dst;
}

/*
 * The statement for table into out: with the values written in (values
 * non-NULL, text mode) or with its '?' kept (to prepare). Returns the length.
 */
static size_t
render(char *out, enum my_stmt st, int table, const struct my_values *values)
{
    const struct my_stmt_def *d = &stmt_defs[st];
    const char *s;
    char *o = out;
    int nval = 0;

    for (s = d->sql; *s != '\0'; s++) {
        if (*s == '#')
            o = put_int(o, table);
        else if (*s == '?' && values != NULL)
            o = put_value(o, values, d->vals[nval++]);
        else
            *o++ = *s;
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* Draws what the statement needs; a DELETE's id and k are kept for the INSERT after it. */
static void
draw_values(struct my_conn *c, enum my_stmt st)
{
    struct my_values *v = &c->v;
    int64_t size = c->sh->table_size;

    switch (st) {
    case ST_POINT:
    case ST_INDEX_UPDATE:
        v->id = (int32_t)rng_dist(c->rng, c->sh->dist, 1, size);
        break;
    case ST_SIMPLE_RANGE:
    case ST_SUM_RANGE:
    case ST_ORDER_RANGE:
    case ST_DISTINCT_RANGE:
        v->id = (int32_t)rng_dist(c->rng, c->sh->dist, 1, size);
        v->id_end = v->id + RANGE_SIZE - 1;
        break;
    case ST_NON_INDEX_UPDATE:
        my_rand_digits(v->c, my_c_template, c->rng);
        v->id = (int32_t)rng_dist(c->rng, c->sh->dist, 1, size);
        break;
    case ST_DELETE:
        v->id = (int32_t)rng_dist(c->rng, c->sh->dist, 1, size);
        v->k = (int32_t)rng_dist(c->rng, c->sh->dist, 1, size);
        break;
    case ST_INSERT_AUTO:
        v->k = (int32_t)rng_dist(c->rng, c->sh->dist, 1, size);
        /* fall through */
    case ST_INSERT:
        my_rand_digits(v->c, my_c_template, c->rng);
        my_rand_digits(v->pad, my_pad_template, c->rng);
        break;
    default:
        break;
    }
}

/* Binds a prepared statement's placeholders to the connection's value fields (once). */
static int
bind_values(struct my_conn *c, MYSQL_STMT *stmt, enum my_stmt st)
{
    const struct my_stmt_def *d = &stmt_defs[st];
    MYSQL_BIND b[5];
    int i;

    memset(b, 0, sizeof b);
    for (i = 0; d->vals[i] != V_END; i++) {
        switch (d->vals[i]) {
        case V_ID:
        case V_ID_END:
        case V_K:
            b[i].buffer_type = MYSQL_TYPE_LONG;
            b[i].buffer = d->vals[i] == V_ID  ? &c->v.id
                          : d->vals[i] == V_K ? &c->v.k
                                              : &c->v.id_end;
            break;
        case V_C:
            b[i].buffer_type = MYSQL_TYPE_STRING;
            b[i].buffer = c->v.c;
            b[i].buffer_length = sizeof c->v.c;
            b[i].length = &c->v.c_len;
            break;
        case V_PAD:
            b[i].buffer_type = MYSQL_TYPE_STRING;
            b[i].buffer = c->v.pad;
            b[i].buffer_length = sizeof c->v.pad;
            b[i].length = &c->v.pad_len;
            break;
        case V_END:
            break;
        }
    }
    return i > 0 ? mysql_stmt_bind_param(stmt, b) : 0;
}

/* ---- the library calls: the one place that knows whether they block ---- */

enum drv_status
my_waiting(struct my_conn *c, int status)
{
    c->wait = status;
    /* WAIT_TIMEOUT (never alone: no client timeout is set) and EXCEPT are waited for as READ. */
    return status & MYSQL_WAIT_WRITE ? DRV_WANT_WRITE : DRV_WANT_READ;
}

/* ---- the transaction's steps ---- */

static int
in_transaction(const struct my_conn *c)
{
    if (c->script != NULL)
        return c->iop > 0; /* a ROLLBACK outside a transaction is harmless */
    return c->w->ops[0].st == ST_BEGIN && c->iop > 0;
}

/* -r: the label of the current statement, or -1 (a \set line). */
static int
stmt_label_of(const struct my_conn *c)
{
    if (c->script != NULL)
        return c->sh->stmt_id[c->first + c->iop];
    return c->sh->op_label[c->entry] + c->iop;
}

/* -r: the statement starts now (only timed with -r). */
static void
stmt_sent(struct my_conn *c, const struct txn_result *res)
{
    if (res->stmts != NULL)
        c->sent_us = now_us();
}

/* A statement failed: the connection is lost, or the transaction rolls back and ends. */
static enum step
failed(struct my_conn *c, unsigned errnum, const char *msg, struct txn_result *res, int *status)
{
    int id = stmt_label_of(c);

    if (id >= 0)
        stmt_record(res, id, 0, 1);
    first_line(res->msg, sizeof res->msg, msg);
    if (errnum == CR_NET_PACKET_TOO_LARGE) { /* MY_PACKET_MAX: the connection is dropped */
        res->err = ERR_DRIVER_1;
        return STEP_LOST;
    }
    if (my_error_is_conn_lost(errnum)) {
        res->err = ERR_CONN;
        return STEP_LOST;
    }
    res->err = errnum == ER_LOCK_DEADLOCK ? ERR_DEADLOCK : ERR_OTHER;
    if (!in_transaction(c))
        return STEP_DONE;
    c->phase = PH_ROLLBACK;
    *status = my_call_query(c, "ROLLBACK", 8);
    return STEP_CALL;
}

static enum step
mysql_failed(struct my_conn *c, struct txn_result *res, int *status)
{
    return failed(c, mysql_errno(c->m), mysql_error(c->m), res, status);
}

static enum step
stmt_failed(struct my_conn *c, struct txn_result *res, int *status)
{
    return failed(c, mysql_stmt_errno(c->stmt), mysql_stmt_error(c->stmt), res, status);
}

/* Sends the current operation's statement. */
static enum step
start_op(struct my_conn *c, struct txn_result *res, int *status)
{
    const struct my_shared *sh = c->sh;
    const struct my_op *op = &c->w->ops[c->iop];
    int slot = sh->slot[op->st];
    MYSQL_STMT **sp;
    size_t len;

    if (op->new_table)
        c->table = (int)rng_range(c->rng, 1, sh->tables);
    draw_values(c, op->st);
    stmt_sent(c, res);
    if (slot < 0) {
        c->phase = PH_QUERY;
        len = render(c->text, op->st, c->table, &c->v);
        *status = my_call_query(c, c->text, len);
        return STEP_CALL;
    }
    sp = &c->stmts[slot * sh->tables + c->table - 1];
    if (*sp != NULL) {
        c->stmt = *sp;
        c->phase = PH_EXECUTE;
        *status = my_call_execute(c);
        return STEP_CALL;
    }
    c->stmt = *sp = mysql_stmt_init(c->m);
    if (c->stmt == NULL)
        return failed(c, CR_OUT_OF_MEMORY, "out of memory", res, status);
    c->phase = PH_PREPARE;
    len = render(c->text, op->st, c->table, NULL);
    *status = my_call_prepare(c, c->text, len);
    return STEP_CALL;
}

/* ---- -f scripts ---- */

/* Binds the statement's '?' to c->refs (once per prepared statement). */
static int
bind_script(struct my_conn *c)
{
    const struct my_script_stmt *ss = &c->sh->sstmt[c->first + c->iop];
    MYSQL_BIND b[MY_SCRIPT_REFS];
    int i;

    memset(b, 0, sizeof b);
    for (i = 0; i < ss->nrefs; i++) {
        b[i].buffer_type = MYSQL_TYPE_LONGLONG;
        b[i].buffer = &c->refs[i];
    }
    return ss->nrefs > 0 ? mysql_stmt_bind_param(c->stmt, b) : 0;
}

/* Sends a script statement: as text with its values written in, or prepared (once) and executed. */
static enum step
send_script_stmt(struct my_conn *c, const struct script_cmd *cmd, struct txn_result *res,
                 int *status)
{
    const struct my_script_stmt *ss = &c->sh->sstmt[c->first + c->iop];
    MYSQL_STMT **sp = &c->sstmts[c->first + c->iop];
    int i, len;

    stmt_sent(c, res);
    if (c->sh->mode == MY_MODE_TEXT || ss->text) {
        len = script_render(cmd, c->vars, c->render, c->sh->render_len);
        if (len < 0)
            return failed(c, 0, "script statement longer than its buffer", res, status);
        c->phase = PH_QUERY;
        *status = my_call_query(c, c->render, (size_t)len);
        return STEP_CALL;
    }
    for (i = 0; i < ss->nrefs; i++)
        c->refs[i] = c->vars[ss->ref_var[i]];
    c->phase = *sp != NULL ? PH_EXECUTE : PH_PREPARE;
    if (*sp != NULL) {
        c->stmt = *sp;
        *status = my_call_execute(c);
        return STEP_CALL;
    }
    c->stmt = *sp = mysql_stmt_init(c->m);
    if (c->stmt == NULL)
        return failed(c, CR_OUT_OF_MEMORY, "out of memory", res, status);
    *status = my_call_prepare(c, ss->marks, strlen(ss->marks));
    return STEP_CALL;
}

/* Runs the \set lines up to the script's next statement and sends it; STEP_DONE at its end. */
static enum step
start_script_cmd(struct my_conn *c, struct txn_result *res, int *status)
{
    const struct script *s = c->script;
    char err[BT_ERRLEN];

    for (; c->iop < s->ncmds; c->iop++) {
        const struct script_cmd *cmd = &s->cmds[c->iop];
        if (cmd->kind == SCRIPT_SQL)
            return send_script_stmt(c, cmd, res, status);
        if (script_eval(cmd, c->vars, c->rng, err) < 0)
            return failed(c, 0, err, res, status);
    }
    return STEP_DONE;
}

/* A transaction begins: its built-in or script drawn from the mix, then its first statement. */
enum step
my_begin_txn(struct my_conn *c, struct txn_result *res, int *status)
{
    const struct my_shared *sh = c->sh;
    int e = mix_pick(&sh->mix, c->rng);

    c->iop = 0;
    c->entry = e;
    c->script = sh->mix.e[e].script;
    if (c->script == NULL) {
        c->w = &workloads[sh->mix.e[e].builtin];
        return start_op(c, res, status);
    }
    c->first = sh->first[e];
    c->vars[0] = c->client_id;
    c->vars[1] = sh->tables;
    c->vars[2] = sh->table_size;
    return start_script_cmd(c, res, status);
}

/* The operation is over: the next one, or the end of the transaction. */
static enum step
next_op(struct my_conn *c, struct txn_result *res, int *status)
{
    if (res->stmts != NULL)
        stmt_record(res, stmt_label_of(c), now_us() - c->sent_us, 0);
    res->ops++;
    c->iop++;
    if (c->script != NULL)
        return start_script_cmd(c, res, status);
    if (c->iop == c->w->nops)
        return STEP_DONE;
    return start_op(c, res, status);
}

/* A prepare failed: the handle goes, so that the next transaction prepares again. */
static enum step
prepare_failed(struct my_conn *c, struct txn_result *res, int *status)
{
    const struct my_shared *sh = c->sh;
    enum step s = stmt_failed(c, res, status);

    if (c->script != NULL)
        c->sstmts[c->first + c->iop] = NULL;
    else
        c->stmts[sh->slot[c->w->ops[c->iop].st] * sh->tables + c->table - 1] = NULL;
    mysql_stmt_close(c->stmt);
    c->stmt = NULL;
    return s;
}

/* The library call of the current phase finished: look at its result and go on. */
static enum step
phase_done(struct my_conn *c, struct txn_result *res, int *status)
{
    switch (c->phase) {
    case PH_QUERY:
        if (c->ret != 0)
            return mysql_failed(c, res, status);
        if (mysql_field_count(c->m) == 0)
            return next_op(c, res, status);
        c->phase = PH_STORE;
        *status = my_call_store(c);
        return STEP_CALL;
    case PH_STORE:
        if (c->res == NULL)
            return mysql_failed(c, res, status);
        mysql_free_result(c->res); /* stored: no I/O */
        c->res = NULL;
        return next_op(c, res, status);
    case PH_PREPARE:
        if (c->ret != 0)
            return prepare_failed(c, res, status);
        if ((c->script != NULL ? bind_script(c) : bind_values(c, c->stmt, c->w->ops[c->iop].st)) !=
            0)
            return stmt_failed(c, res, status);
        c->phase = PH_EXECUTE;
        *status = my_call_execute(c);
        return STEP_CALL;
    case PH_EXECUTE:
        if (c->ret != 0)
            return stmt_failed(c, res, status);
        if (mysql_stmt_field_count(c->stmt) == 0)
            return next_op(c, res, status);
        c->phase = PH_STMT_STORE;
        *status = my_call_stmt_store(c);
        return STEP_CALL;
    case PH_STMT_STORE:
        if (c->ret != 0)
            return stmt_failed(c, res, status);
        mysql_stmt_free_result(c->stmt); /* stored: no I/O */
        return next_op(c, res, status);
    case PH_ROLLBACK:
        /* res already holds the error that led here; a lost connection still counts */
        if (c->ret != 0 && my_error_is_conn_lost(mysql_errno(c->m)))
            return STEP_LOST;
        return STEP_DONE;
    }
    fatal("mysql: unknown phase %d", (int)c->phase);
}

/* Runs the transaction on from a library call that returned status, until it waits or ends. */
enum drv_status
my_advance(struct my_conn *c, struct txn_result *res, enum step s, int status)
{
    while (s == STEP_CALL && status == 0)
        s = phase_done(c, res, &status);
    if (s == STEP_DONE)
        return DRV_DONE;
    if (s == STEP_LOST)
        return DRV_ERROR;
    return my_waiting(c, status);
}

/* ---- main-thread callbacks ---- */

/* Prepares every statement once on table 1, so a missing privilege fails now, not per transaction.
 */
static int
check_statements(MYSQL *m, const struct my_workload *w, char *err)
{
    char sql[TEXT_MAX];
    int i, rc = 0;

    for (i = 0; i < w->nops && rc == 0; i++) {
        enum my_stmt st = w->ops[i].st;
        MYSQL_STMT *stmt;
        size_t len;

        if (st == ST_BEGIN || st == ST_COMMIT)
            continue;
        stmt = mysql_stmt_init(m);
        len = render(sql, st, 1, NULL);
        if (stmt == NULL || mysql_stmt_prepare(stmt, sql, (unsigned long)len) != 0) {
            const char *hint = stmt ? my_error_hint(mysql_stmt_errno(stmt), NULL) : "";
            rc = seterr(err, "the server rejects %s: %s%s%s", sql,
                        stmt ? mysql_stmt_error(stmt) : "out of memory", *hint ? " " : "", hint);
        }
        if (stmt != NULL)
            mysql_stmt_close(stmt);
    }
    return rc;
}

/* The mix's built-in workloads, in the order of workloads[] (mix_entry.builtin). */
static const struct my_workload *
entry_workload(const struct my_shared *sh, int e)
{
    return sh->mix.e[e].script != NULL ? NULL : &workloads[sh->mix.e[e].builtin];
}

static void
assign_slots(struct my_shared *sh)
{
    int i, e;

    for (i = 0; i < ST__COUNT; i++)
        sh->slot[i] = -1;
    if (sh->mode != MY_MODE_PREPARED)
        return;
    for (e = 0; e < sh->mix.n; e++) {
        const struct my_workload *w = entry_workload(sh, e);
        for (i = 0; w != NULL && i < w->nops; i++) {
            enum my_stmt st = w->ops[i].st;
            if (st != ST_BEGIN && st != ST_COMMIT && sh->slot[st] < 0)
                sh->slot[st] = sh->nslots++;
        }
    }
}

/* One script statement: its '?' text and references, and its longest text with values. */
static int
compile_stmt(struct my_shared *sh, const struct script *s, const struct script_cmd *cmd,
             struct my_script_stmt *ss, char *err)
{
    size_t len;

    ss->nrefs = script_ref_vars(cmd, ss->ref_var, MY_SCRIPT_REFS);
    if (ss->nrefs < 0)
        return seterr(err, "%s:%d: statement has more than %d variable references (split it)",
                      s->name, cmd->line, MY_SCRIPT_REFS);
    ss->marks = script_sql_marks(cmd);
    len = strlen(cmd->sql) + 22u * (size_t)ss->nrefs + 1;
    if (len > sh->render_len)
        sh->render_len = len;
    return 0;
}

/* Lays out the -f scripts' statements (sh->first, sh->sstmt); each script needs one. */
static int
compile_scripts(struct my_shared *sh, char *err)
{
    int e, i, nsql;

    for (e = 0; e < sh->mix.n; e++) {
        sh->first[e] = sh->nscript_cmds;
        if (sh->mix.e[e].script != NULL)
            sh->nscript_cmds += sh->mix.e[e].script->ncmds;
    }
    sh->sstmt = xcalloc((size_t)sh->nscript_cmds + 1, sizeof *sh->sstmt);
    for (e = 0; e < sh->mix.n; e++) {
        const struct script *s = sh->mix.e[e].script;
        for (i = nsql = 0; s != NULL && i < s->ncmds; i++) {
            if (s->cmds[i].kind != SCRIPT_SQL)
                continue;
            nsql++;
            if (compile_stmt(sh, s, &s->cmds[i], &sh->sstmt[sh->first[e] + i], err) < 0)
                return -1;
        }
        if (s != NULL && nsql == 0)
            return seterr(err, "%s has no SQL statement (add at least one)", s->name);
    }
    return 0;
}

/*
 * Prepares each script statement once, so a broken one fails now with its
 * line; one the server cannot prepare (BEGIN) and that has no variable is
 * sent as text.
 */
static int
check_script(MYSQL *m, struct my_shared *sh, int e, char *err)
{
    const struct script *s = sh->mix.e[e].script;
    int i, rc = 0;

    for (i = 0; i < s->ncmds && rc == 0; i++) {
        struct my_script_stmt *ss = &sh->sstmt[sh->first[e] + i];
        MYSQL_STMT *stmt;

        if (s->cmds[i].kind != SCRIPT_SQL)
            continue;
        stmt = mysql_stmt_init(m);
        if (stmt == NULL)
            return seterr(err, "out of memory");
        if (mysql_stmt_prepare(stmt, ss->marks, (unsigned long)strlen(ss->marks)) != 0) {
            if (mysql_stmt_errno(stmt) == ER_UNSUPPORTED_PS && ss->nrefs == 0)
                ss->text = 1;
            else
                rc = seterr(err, "%s:%d: the server rejects this statement: %s (fix the script)",
                            s->name, s->cmds[i].line, mysql_stmt_error(stmt));
        }
        mysql_stmt_close(stmt);
    }
    return rc;
}

/* The tables the built-ins need (counter ones first: sbtest's figures win), or the options'. */
static int
find_tables(MYSQL *m, const struct runconf *rc, const struct my_opts *o, struct my_shared *sh,
            char *err)
{
    struct my_tables found = {.tables = o->tables, .table_size = o->table_size}, scripts;
    char ignored[BT_ERRLEN];
    int e, pass, builtin_sbtest = 0, script = 0;

    for (pass = 0; pass < 2; pass++)
        for (e = 0; e < sh->mix.n; e++) {
            const struct my_workload *w = entry_workload(sh, e);
            script |= w == NULL;
            builtin_sbtest |= w != NULL && w->uses_sbtest;
            if (w != NULL && w->uses_sbtest == pass &&
                my_find_tables(m, rc, o, w->uses_sbtest, w->ops[0].st == ST_INSERT_AUTO, &found,
                               err) < 0)
                return -1;
        }
    /* a script's :tables and :table_size are sysbench's tables as they are, when there are some */
    if (script && !builtin_sbtest && my_find_tables(m, rc, o, 1, 1, &scripts, ignored) == 0)
        found = scripts;
    sh->tables = found.tables;
    sh->table_size = found.table_size;
    return 0;
}

/* -r: the scripts' statements (mix.c), then each built-in's operations, as sysbench writes them. */
static void
make_labels(struct my_shared *sh)
{
    int e, i, n;

    sh->stmt_id = xcalloc((size_t)sh->nscript_cmds + 1, sizeof *sh->stmt_id);
    n = mix_stmt_labels(&sh->mix, sh->first, sh->stmt_id, &sh->labels);
    for (e = 0; e < sh->mix.n; e++) {
        const struct my_workload *w = entry_workload(sh, e);
        if (w == NULL)
            continue;
        sh->labels = xrealloc(sh->labels, (size_t)(n + w->nops) * sizeof *sh->labels);
        sh->op_label[e] = n;
        for (i = 0; i < w->nops; i++, n++) {
            sh->labels[n].script = w->name;
            sh->labels[n].line = 0;
            sh->labels[n].text = stmt_defs[w->ops[i].st].sql;
        }
    }
    sh->nlabels = n;
}

static int
check_mix(MYSQL *m, struct my_shared *sh, char *err)
{
    for (int e = 0; e < sh->mix.n; e++) {
        const struct my_workload *w = entry_workload(sh, e);
        if (w != NULL ? check_statements(m, w, err) < 0 : check_script(m, sh, e, err) < 0)
            return -1;
    }
    return 0;
}

static int
parse_choices(const struct runconf *rc, const struct my_opts *o, struct my_shared *sh, char *err)
{
    const char *mode = rc->mode ? rc->mode : my_modes[0];

    if (mix_parse(&sh->mix, rc, "mysql", my_workloads, err) < 0 ||
        mix_load(&sh->mix, NULL, my_predef, 0, err) < 0 || compile_scripts(sh, err) < 0)
        return -1;
    if (strcmp(mode, "text") == 0)
        sh->mode = MY_MODE_TEXT;
    else if (strcmp(mode, "prepared") == 0)
        sh->mode = MY_MODE_PREPARED;
    else
        return seterr(err, "unknown protocol '%s' for mysql (use -M text or prepared)", mode);
    if (o->table_size > INT32_MAX - RANGE_SIZE)
        return seterr(err, "--table-size must be below %d for mysql (ids are INTEGER)",
                      INT32_MAX - RANGE_SIZE);
    if (rng_dist_parse(o->rand_type) < 0)
        return seterr(err, "unknown --rand-type '%s' (use uniform, special, gaussian or pareto)",
                      o->rand_type);
    sh->dist = (enum rng_dist)rng_dist_parse(o->rand_type);
    return 0;
}

static void my_release(void *shared);

static void *
my_prepare(const struct runconf *rc, const void *opts, char *err)
{
    const struct my_opts *o = opts;
    struct my_shared *sh = xcalloc(1, sizeof *sh);
    MYSQL *m = NULL;

    sh->target = rc->tgt.parsed;
    if (parse_choices(rc, o, sh, err) < 0)
        goto fail;
    if (my_connect_timed(sh->target, MY_ANSWER_TIMEOUT_S, &m, err) < 0 ||
        find_tables(m, rc, o, sh, err) < 0 || check_mix(m, sh, err) < 0)
        goto fail;
    my_tls_read(m, &sh->tls);
    sh->job_connect_timeout_s = (unsigned)ceil(rc->stall_timeout_s);
    assign_slots(sh);
    make_labels(sh);
    mysql_close(m);
    return sh;
fail:
    if (m != NULL)
        mysql_close(m);
    my_release(sh);
    return NULL;
}

static void
my_tls(const void *shared, struct drv_tls *out)
{
    *out = ((const struct my_shared *)shared)->tls;
}

static void
my_release(void *shared)
{
    struct my_shared *sh = shared;

    for (int i = 0; sh->sstmt != NULL && i < sh->nscript_cmds; i++)
        free(sh->sstmt[i].marks);
    free(sh->sstmt);
    free(sh->stmt_id);
    free(sh->labels);
    mix_free(&sh->mix);
    free(sh);
}

/* ---- per-connection callbacks (worker threads, never blocking) ---- */

static void *
my_conn_new(void *shared, int client_id, struct rng *rng)
{
    struct my_shared *sh = shared;
    struct my_conn *c = xcalloc(1, sizeof *c);

    c->sh = sh;
    c->rng = rng;
    c->client_id = client_id;
    c->table = 1;
    c->v.c_len = sizeof c->v.c;
    c->v.pad_len = sizeof c->v.pad;
    if (sh->nslots > 0)
        c->stmts = xcalloc((size_t)sh->nslots * (size_t)sh->tables, sizeof *c->stmts);
    c->sstmts = xcalloc((size_t)sh->nscript_cmds + 1, sizeof *c->sstmts);
    c->job_stmts = xcalloc((size_t)sh->nlabels + 1, sizeof *c->job_stmts);
    c->render = xmalloc(sh->render_len + 1);
    my_io_conn_init(c);
    return c;
}

/* The connection is open: the collector may now tell its session from others' (ownids). */
void
my_note_connected(struct my_conn *c)
{
    c->own_id = mysql_thread_id(c->m);
    if (c->own_id != 0)
        ownids_add(c->own_id);
}

/* Closes the connection and forgets its prepared statements (they die with it). */
void
my_close_conn(struct my_conn *c)
{
    size_t i, n = (size_t)c->sh->nslots * (size_t)c->sh->tables;

    if (c->own_id != 0)
        ownids_remove(c->own_id);
    c->own_id = 0;

    if (c->res != NULL)
        mysql_free_result(c->res);
    c->res = NULL;
    /* Closing the connection first detaches its statements, so closing them sends nothing. */
    if (c->m != NULL)
        mysql_close(c->m);
    c->m = NULL;
    for (i = 0; i < n; i++) {
        if (c->stmts[i] != NULL)
            mysql_stmt_close(c->stmts[i]);
        c->stmts[i] = NULL;
    }
    for (i = 0; i < (size_t)c->sh->nscript_cmds; i++) {
        if (c->sstmts[i] != NULL)
            mysql_stmt_close(c->sstmts[i]);
        c->sstmts[i] = NULL;
    }
    c->stmt = NULL;
}

void
my_conn_release(struct my_conn *c)
{
    free(c->stmts);
    free(c->sstmts);
    free(c->job_stmts);
    free(c->render);
    free(c);
}

enum drv_status
my_connect_failed(struct my_conn *c, char *err)
{
    char line[BT_ERRLEN];
    const char *hint = my_error_hint(mysql_errno(c->m), mysql_error(c->m));

    first_line(line, sizeof line, mysql_error(c->m));
    seterr(err, "%s%s%s", line, *hint ? " " : "", hint);
    return DRV_ERROR;
}

/* A new handle with the target's options; NULL with err on failure. */
MYSQL *
my_new_handle(struct my_conn *c, int nonblocking, char *err)
{
    MYSQL *m = mysql_init(NULL);

    if (m == NULL) {
        seterr(err, "out of memory");
        return NULL;
    }
    if (nonblocking && my_io_set_nonblocking(m, err) < 0) {
        mysql_close(m);
        return NULL;
    }
    /*
     * A blocking connect has no socket to cut (jobthread_cancel) until it
     * returns: a server that accepts and never answers would hold the worker
     * at the stall check and at the end of the run. The library's connect
     * timeout ends it instead (it covers the greeting and the login, not the
     * queries after).
     */
    if (my_target_apply(m, c->sh->target, nonblocking ? 0 : c->sh->job_connect_timeout_s, err) <
        0) {
        mysql_close(m);
        return NULL;
    }
    return m;
}

static int
my_stmt_labels(const void *shared, const struct stmt_label **out)
{
    const struct my_shared *sh = shared;

    *out = sh->labels;
    return sh->nlabels;
}

#define MY_OFF(field) offsetof(struct my_opts, field)

static const struct option_def my_defs[] = {
    {"tables", 0, OPT_INT, MY_OFF(tables), 1, 10000, "1", "N", CMD_ALL,
     "sysbench tables sbtest1..N (init creates them, runs use them)"},
    {"table-size", 0, OPT_LLONG, MY_OFF(table_size), 1, 1e12, "10000", "N", CMD_ALL,
     "rows per sysbench table"},
    {"rand-type", 0, OPT_STRING, MY_OFF(rand_type), 0, 0, "uniform", "DIST", CMD_LOAD,
     "how ids and k are drawn, as sysbench's --rand-type: uniform, special (sysbench 1.0's "
     "default: 75% of draws in the middle 1% of ids), gaussian or pareto"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};
static const struct option_group my_option_group = {"mysql", my_defs, NULL};
static const struct driver_options my_options[] = {{&my_option_group, 0}, {NULL, 0}};

static const char *const my_err_kinds[] = {"reply_too_large", NULL};

const struct driver_class mysql_driver_class = {
    .name = "mysql",
    .err_kinds = my_err_kinds,
    .version_note = my_io_note,
    .schemes = my_schemes,
    .workloads = my_workloads,
    .modes = my_modes,
    .options = my_options,
    .options_size = sizeof(struct my_opts),
    .claims = NULL,
    .mask = my_mask_target,
    .parse = my_target_new,
    .free_parsed = my_target_delete,
    .prepare = my_prepare,
    .release = my_release,
    .tls = my_tls,
    .conn_new = my_conn_new,
    .conn_free = my_conn_free,
    .conn_fd = my_conn_fd,
    .conn_connect_start = my_conn_connect_start,
    .conn_connect_poll = my_conn_connect_poll,
    .conn_txn_start = my_conn_txn_start,
    .conn_txn_poll = my_conn_txn_poll,
    .conn_disconnect = my_conn_disconnect,
    .stmt_labels = my_stmt_labels,
    .needs_init = 1,
    .init = my_init,
};
