/*
 * itest-mysql: what the MySQL integration tests share on top of itest.h:
 * an admin connection to the throwaway MariaDB (BENCHTOP_MY_TARGET, root
 * without a password from 127.0.0.1), statements and counters read through
 * it, and targets for other databases of that server.
 */
#ifndef BENCHTOP_ITEST_MYSQL_H
#define BENCHTOP_ITEST_MYSQL_H

#include "itest.h"

#include <mysql.h>

/* The port of BENCHTOP_MY_TARGET (mysql://root@127.0.0.1:PORT/benchtop). */
static inline unsigned
itest_my_port(void)
{
    const char *t = itest_env("BENCHTOP_MY_TARGET");
    const char *colon = strrchr(t, ':');

    return colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
}

/* A target for another database (and optionally user:password) of the test server. */
static inline char *
itest_my_target_as(const char *userinfo, const char *dbname)
{
    static char buf[8][512];
    static int k;
    char *out = buf[k++ % 8];

    snprintf(out, 512, "mysql://%s@127.0.0.1:%u/%s", userinfo, itest_my_port(), dbname);
    return out;
}

static inline char *
itest_my_target(const char *dbname)
{
    return itest_my_target_as("root", dbname);
}

static inline MYSQL *
itest_my(const char *dbname)
{
    MYSQL *m = mysql_init(NULL);

    if (mysql_real_connect(m, "127.0.0.1", "root", "", dbname, itest_my_port(), NULL, 0) == NULL) {
        fprintf(stderr, "cannot connect to the test server: %s\n", mysql_error(m));
        exit(1);
    }
    return m;
}

static inline void
itest_my_exec(MYSQL *m, const char *sql)
{
    MYSQL_RES *r;

    if (mysql_query(m, sql) != 0) {
        fprintf(stderr, "%s: %s\n", sql, mysql_error(m));
        exit(1);
    }
    r = mysql_store_result(m);
    if (r != NULL)
        mysql_free_result(r);
}

/* The first column of the first row as a number (-1 if none). */
static inline long long
itest_my_scalar(MYSQL *m, const char *sql)
{
    MYSQL_RES *r;
    MYSQL_ROW row;
    long long v = -1;

    if (mysql_query(m, sql) != 0 || (r = mysql_store_result(m)) == NULL) {
        fprintf(stderr, "%s: %s\n", sql, mysql_error(m));
        exit(1);
    }
    row = mysql_fetch_row(r);
    if (row != NULL && row[0] != NULL)
        v = strtoll(row[0], NULL, 10);
    mysql_free_result(r);
    return v;
}

/* A global status counter (SHOW GLOBAL STATUS is itself counted only in Com_show_status). */
static inline long long
itest_my_status(MYSQL *m, const char *name)
{
    char sql[160];
    MYSQL_RES *r;
    MYSQL_ROW row;
    long long v = -1;

    snprintf(sql, sizeof sql, "SHOW GLOBAL STATUS LIKE '%s'", name);
    if (mysql_query(m, sql) != 0 || (r = mysql_store_result(m)) == NULL) {
        fprintf(stderr, "%s: %s\n", sql, mysql_error(m));
        exit(1);
    }
    row = mysql_fetch_row(r);
    if (row != NULL && row[1] != NULL)
        v = strtoll(row[1], NULL, 10);
    mysql_free_result(r);
    return v;
}

/* Drops and creates dbname, then fills it with benchtop init (extra arguments appended). */
static inline int
itest_my_fresh_db(const char *dbname, const char *tables, const char *size)
{
    MYSQL *m = itest_my(NULL);
    char sql[128];
    char *args[] = {"init",         itest_my_target(dbname),
                    "--tables",     (char *)tables,
                    "--table-size", (char *)size,
                    "-q",           NULL};

    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", dbname);
    itest_my_exec(m, sql);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", dbname);
    itest_my_exec(m, sql);
    mysql_close(m);
    return itest_init(args);
}

#endif
