/*
 * mysql/settings: the MySQL/MariaDB settings that matter for tuning, read
 * for the collector, and SET GLOBAL from the dashboard.
 *
 * The server has no cheap "a variable changed" counter, so every read is
 * one SHOW GLOBAL VARIABLES naming ours (one round trip).
 */
#include "mysql.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/collector.h"

static const char *const names[] = {
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "innodb_buffer_pool_size",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_log_file_size",
    "innodb_log_buffer_size",
    "innodb_flush_method",
    "innodb_doublewrite",
    "innodb_flush_neighbors",
    "innodb_adaptive_hash_index",
    "innodb_read_io_threads",
    "innodb_write_io_threads",
    "max_connections",
    "thread_cache_size",
    "thread_handling",
    "table_open_cache",
    "tmp_table_size",
    "max_heap_table_size",
    "log_bin",
    "binlog_format",
    "query_cache_type",
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

static char *
read_sql(void)
{
    size_t len = 128, i;
    char *sql, *p;

    for (i = 0; i < NNAMES; i++)
        len += strlen(names[i]) + 4;
    p = sql = xmalloc(len);
    p += sprintf(p, "SHOW GLOBAL VARIABLES WHERE Variable_name IN (");
    for (i = 0; i < NNAMES; i++)
        p += sprintf(p, "%s'%s'", i ? "," : "", names[i]);
    sprintf(p, ")");
    return sql;
}

int
my_settings_read(MYSQL *m, struct coll_settings *out, char *err)
{
    struct coll_settings got = {0};
    MYSQL_RES *res;
    MYSQL_ROW row;
    char *sql = read_sql();
    size_t i;
    int rc = mysql_query(m, sql);

    free(sql);
    if (rc != 0 || (res = mysql_store_result(m)) == NULL)
        return my_sql_error(m, "read", "the settings", err);
    while ((row = mysql_fetch_row(res)) != NULL)
        if (row[0] != NULL)
            coll_setting_add(&got, row[0], row[1] ? row[1] : "");
    mysql_free_result(res);
    /* the class's order, whatever order the server answered in */
    for (i = 0; i < NNAMES; i++) {
        const char *v = coll_setting_get(&got, names[i]);
        if (v != NULL)
            coll_setting_add(out, names[i], v);
    }
    return 0;
}

/* A number or a keyword goes in bare (SET GLOBAL rejects '0' for a numeric variable). */
static int
bare(const char *v)
{
    char *end;

    if (strcasecmp(v, "DEFAULT") == 0 || strcasecmp(v, "ON") == 0 || strcasecmp(v, "OFF") == 0)
        return 1;
    strtod(v, &end);
    return end != v && *end == '\0';
}

/* A name goes into SQL unquoted: letters, digits and _ only. */
static int
check_name(const char *name, char *err)
{
    size_t i;

    for (i = 0; name[i]; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_')
            return seterr(err, "'%s' is not a variable name (letters, digits and _)", name);
    return i > 0 && i < 64 ? 0 : seterr(err, "'%s' is not a variable name", name);
}

/*
 * The first cell of sql's one row into out ("DEFAULT" for NULL); 1 when a
 * row came, 0 for none, -1 with err when the server refused the query.
 */
static int
one_cell(MYSQL *m, const char *sql, const char *name, char *out, size_t len, char *err)
{
    int rc = my_query_cell(m, sql, name, out, len, err);

    if (rc == MY_CELL_NULL)
        snprintf(out, len, "DEFAULT");
    return rc < 0 ? -1 : rc != MY_CELL_NONE;
}

/* The first cell of sql's one row, whole: a new string ("DEFAULT" for NULL); NULL, err "" for no
 * row. */
static char *
cell_dup(MYSQL *m, const char *sql, const char *name, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    unsigned long *lens;
    char *v = NULL;

    err[0] = '\0';
    if (mysql_query(m, sql) != 0 || (res = mysql_store_result(m)) == NULL) {
        my_sql_error(m, "read", name, err);
        return NULL;
    }
    if ((row = mysql_fetch_row(res)) != NULL && (lens = mysql_fetch_lengths(res)) != NULL) {
        v = xmalloc(lens[0] + 1);
        if (row[0] != NULL)
            memcpy(v, row[0], lens[0]);
        v[lens[0]] = '\0';
        if (row[0] == NULL) {
            free(v);
            v = xstrdup("DEFAULT");
        }
    }
    mysql_free_result(res);
    return v;
}

char *
my_settings_undo_value(MYSQL *m, const char *name, char *err)
{
    char sql[256], ro[8];
    char *value;

    if (check_name(name, err) < 0)
        return NULL;
    snprintf(sql, sizeof sql, "SELECT @@GLOBAL.%s", name);
    if ((value = cell_dup(m, sql, name, err)) == NULL) {
        if (!err[0])
            seterr(err, "%s is not a global variable", name);
        return NULL;
    }
    /* MariaDB says which are read-only; MySQL has no such table, and SET GLOBAL refuses later */
    snprintf(sql, sizeof sql,
             "SELECT READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = "
             "UPPER('%s')",
             name);
    if (one_cell(m, sql, name, ro, sizeof ro, err) == 1 && strcmp(ro, "YES") == 0) {
        free(value);
        seterr(err, "%s is read-only: it needs a restart (set it in my.cnf)", name);
        return NULL;
    }
    err[0] = '\0';
    return value;
}

int
my_settings_apply(MYSQL *m, const char *name, const char *value, char *err)
{
    size_t n = strlen(value);
    char *quoted = xmalloc(2 * n + 1), *sql;
    int rv = 0;

    if (check_name(name, err) < 0) {
        free(quoted);
        return -1;
    }
    if (bare(value))
        sql = xasprintf("SET GLOBAL %s = %s", name, value);
    else {
        mysql_real_escape_string(m, quoted, value, (unsigned long)n);
        sql = xasprintf("SET GLOBAL %s = '%s'", name, quoted);
    }
    if (mysql_query(m, sql) != 0)
        rv = my_sql_error(m, "set", name, err);
    free(sql);
    free(quoted);
    return rv;
}

/* One try at a time per server: GET_LOCK on the collector's session (gone with it). */
int
my_settings_try_lock(MYSQL *m, char *holder, size_t len, char *err)
{
    char got[8], who[32];

    if (my_query_cell(m, "SELECT GET_LOCK('benchtop_try', 0)", "the try lock", got, sizeof got,
                      err) < 0)
        return -1;
    if (strcmp(got, "1") == 0)
        return 1;
    if (my_query_cell(m, "SELECT IS_USED_LOCK('benchtop_try')", "the try lock", who, sizeof who,
                      err) == MY_CELL_VALUE)
        snprintf(holder, len, "connection %s", who);
    return 0;
}

void
my_settings_try_unlock(MYSQL *m)
{
    char got[8], err[BT_ERRLEN];

    my_query_cell(m, "SELECT RELEASE_LOCK('benchtop_try')", "the try lock", got, sizeof got, err);
}

/* The server whatever the target's spelling: its host name, port and server id (or uuid). */
int
my_settings_identity(MYSQL *m, char *buf, size_t len, char *err)
{
    char id[200];

    if (my_query_cell(m, "SELECT CONCAT_WS(':', @@hostname, @@port, @@server_id)", "the server id",
                      id, sizeof id, err) < 0)
        return -1;
    snprintf(buf, len, "mysql:%s", id);
    return 0;
}
