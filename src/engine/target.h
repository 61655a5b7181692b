/*
 * target: a target string parsed once, where the command line is read,
 * into what the rest of a run asks of it (its driver and collector, its
 * masked form, host, port, whether it is on this machine), so that no
 * later layer splits the string again. A driver with a parse callback
 * parses its own parameters (?cacert=, TLS, socket) here too, once, into
 * .parsed: its prepare, init, collector and inspect read that. Drivers
 * without one (libpq's conninfo, libcurl's URL) hand raw to their library.
 */
#ifndef BENCHTOP_ENGINE_TARGET_H
#define BENCHTOP_ENGINE_TARGET_H

struct driver_class;
struct collector_class;

struct target {
    char *raw;          /* as given, password intact: only for a driver's library; never printed */
    char *masked;       /* the password replaced by "***": safe to print */
    const char *scheme; /* the driver's scheme it starts with; NULL */
    const struct driver_class *driver;       /* by scheme, then by claims(); NULL */
    const struct collector_class *collector; /* what reads it (--watch); NULL */
    char host[256];                          /* without brackets; "" when it names none */
    int port;                                /* 1..65535; 0 when it names none */
    int local;                               /* loopback, a unix socket or no host */
    char path[1024]; /* no host: the unix socket or database file it names; "" */
    /*
     * The driver's own parse of raw (driver_class.parse), opaque here: a
     * union would name every backend's struct in the engine, which knows
     * no database. NULL when the driver has no parse (or none knows it).
     */
    void *parsed;
};

/*
 * Parses raw into t (which owns copies), the driver's own parse included.
 * -1 when no driver knows it (t->driver NULL: t's masked form is then
 * uri_mask's, for the caller's message; the rest still set), or when its
 * driver refuses it as malformed (t->driver set, err: the driver's one
 * line). Free with target_free either way.
 */
int target_parse(struct target *t, const char *raw, char *err);
/* Frees what target_parse allocated, the raw copy wiped first. */
void target_free(struct target *t);
/*
 * A driver's refusal of a malformed target, worded alike by every driver:
 * "invalid target 'MASKED': why hint" in err, masked by the driver's own
 * mask (the typo may sit next to a password). Returns -1.
 */
int target_invalid(const char *raw, char *(*mask)(const char *), const char *why, const char *hint,
                   char *err);

#endif
