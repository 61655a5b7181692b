/*
 * cmd: the subcommand table, --help and --version, and the pieces several
 * subcommands share. To add a subcommand: write src/cmd-NAME.c exporting
 * a const struct cmd_entry, declare it in cmd.h and list it below.
 */
#include "cmd.h"

#include "config.h"
#include "base/sendq.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/headless.h"
#include "run/options.h"
#include "engine/registry.h"
#include "ui/tui.h"
#include "base/util.h"

const struct cmd_entry *const cmd_table[] = {
    &cmd_run_entry,   &cmd_init_entry,    &cmd_demo_entry,        &cmd_watch_entry,
    &cmd_sweep_entry, &cmd_try_entry,     &cmd_report_entry,      &cmd_merge_entry,
    &cmd_serve_entry, &cmd_inspect_entry, &cmd_man_options_entry, NULL,
};

const struct cmd_entry *
cmd_find(const char *word)
{
    const struct cmd_entry *const *c;

    for (c = cmd_table; *c != NULL; c++)
        if (strcmp((*c)->name, word) == 0)
            return *c;
    return NULL;
}

/* The general --help's column for a subcommand's summary, after its usage. */
enum { USAGE_TEXT_COL = 37 };

/* "a (default), b, c" */
static void
format_list(const char *const *names, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int i = 0; names[i] != NULL && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s%s", i ? ", " : "", names[i],
                              i == 0 ? " (default)" : "");
}

/* Workloads and protocols come from the driver classes, so help cannot go stale. */
static void
print_backends(FILE *f)
{
    const struct driver_class *d;
    char lead[32], list[1024];

    fprintf(f, "\nworkloads (-w) and protocols (-M):\n");
    for (size_t i = 0; (d = driver_class_at(i)) != NULL; i++) {
        snprintf(lead, sizeof lead, "  %-10s -w ", d->name);
        format_list(d->workloads, list, sizeof list);
        options_print_wrapped(f, lead, (int)strlen(lead), list);
        snprintf(lead, sizeof lead, "  %-10s -M ", "");
        format_list(d->modes, list, sizeof list);
        options_print_wrapped(f, lead, (int)strlen(lead), list);
    }
}

void
cmd_print_help(FILE *f, const struct cmd_entry *cmd)
{
    const struct cmd_entry *const *c;
    const struct driver_class *d;
    char schemes[256], lead[128], text[320];

    fprintf(f, "benchtop %s: live load and server view for databases\n\n", PACKAGE_VERSION);
    if (cmd != NULL) {
        options_print_wrapped(f, "usage: ", 7, cmd->usage);
        options_print_wrapped(f, "", 2, cmd->summary ? cmd->summary : "");
        fprintf(f, "\noptions:\n");
        options_print_help(f, cmd->mask);
        return;
    }
    fprintf(f, "usage:\n");
    for (c = cmd_table; *c != NULL; c++)
        if ((*c)->summary != NULL) {
            snprintf(lead, sizeof lead, "  %s", (*c)->usage);
            options_print_wrapped(f, lead, USAGE_TEXT_COL, (*c)->summary);
        }
    target_known_schemes(schemes, sizeof(schemes));
    snprintf(text, sizeof text, "%s", schemes);
    for (size_t i = 0; (d = driver_class_at(i)) != NULL; i++)
        if (d->target_forms != NULL)
            snprintf(text + strlen(text), sizeof text - strlen(text), " (or %s)", d->target_forms);
    fputc('\n', f);
    options_print_wrapped(f, "TARGET: ", 8, text);
    fputs("\noptions:\n", f);
    options_print_help(f, CMD_ALL | CMD_REPORT);
    print_backends(f);
    fprintf(f, "\nSee benchtop(1) for the JSON fields and more.\n");
}

/* Whether the workers can batch sends here (sendq.h): they fall back to direct sends alone. */
static void
print_sends(void)
{
    const struct driver_class *d;
    char err[BT_ERRLEN];
    struct sendq *q = sendq_new(err);
    const char *sep = "";

    printf("sends (");
    for (size_t i = 0; (d = driver_class_at(i)) != NULL; i++)
        if (d->reads_drain) {
            printf("%s%s", sep, d->name);
            sep = ", ";
        }
    if (q != NULL)
        printf("): batched per loop turn with io_uring\n");
    else
        printf("): direct, one system call each (%s)\n", err);
    sendq_free(q);
}

void
cmd_print_version(void)
{
    const struct driver_class *d;
    size_t i;

    printf("benchtop %s\nbackends:", PACKAGE_VERSION);
    for (i = 0; (d = driver_class_at(i)) != NULL; i++)
        printf(" %s", d->name);
    printf("\n");
    for (i = 0; (d = driver_class_at(i)) != NULL; i++)
        if (d->version_note != NULL)
            printf("  %s: %s\n", d->name, d->version_note);
    print_sends();
}

void
cmd_choose_front_end(struct runconf *rc)
{
    char err[BT_ERRLEN];

    if (!rc->headless && !isatty(STDOUT_FILENO))
        rc->headless = 1;
    if (!rc->headless && tui_check_terminal(err) < 0)
        usage_fatal("%s", err);
}

void
cmd_check_run_options(struct runconf *rc, int default_seconds)
{
    if (options_given(rc, "time") && options_given(rc, "transactions"))
        usage_fatal("-T and -t cannot be used together (pick a duration or a count)");
    if (rc->threads > rc->clients && options_given(rc, "threads")) /* sysbench's --threads habit */
        fprintf(stderr,
                "benchtop: -j %d but -c %d: running %d client%s on %d thread%s (threads share "
                "clients; give -c %d for %d clients)\n",
                rc->threads, rc->clients, rc->clients, rc->clients == 1 ? "" : "s", rc->clients,
                rc->clients == 1 ? "" : "s", rc->threads, rc->threads);
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    cmd_choose_front_end(rc);
    if (!options_given(rc, "time") && !options_given(rc, "transactions"))
        rc->duration_s = rc->headless ? default_seconds : 0;
}

void
cmd_front_end(struct session *s, int sigfd, struct report_ctx *ctx, const char **names,
              const char **targets)
{
    struct tui_conf tc = {.theme = s->rc->theme, .report = ctx};
    struct headless_conf hc = {.report = ctx};
    char err[BT_ERRLEN];
    int i;

    for (i = 0; i < s->ncollect; i++) {
        tc.names[i] = hc.names[i] = names[i];
        tc.targets[i] = hc.targets[i] = targets[i];
    }
    if (s->rc->headless && tui_check_theme(tc.theme, err) < 0)
        usage_fatal("%s", err);
    if (s->rc->headless)
        headless_run(s, sigfd, &hc);
    else if (tui_run(s, sigfd, &tc, err) < 0)
        usage_fatal("%s", err);
}

int
cmd_looks_like_target(const char *word)
{
    return strstr(word, "://") != NULL || strchr(word, '=') != NULL || word[0] == '/';
}
