/* param: the thresholds' table (see param.h). */
#include "param.h"

#include <stddef.h>
#include <stdio.h>

static const struct param table[P__COUNT] = {
    [P_SATURATED] = {"saturated", 0.8,
                     "queueing: residence grows as 1/(1-U), x5 at 80% (Jain, ch. 33); the old "
                     "rules' CPU ramps started at 70% (many cores) and 90% (one loop)"},
    [P_LITTLE_TOL] = {"little_tol", 0.5,
                      "not measured: wide, so that one tick's in-flight gauge passes; a stall "
                      "(clients in flight, no transaction finished) fails it"},
    [P_FINDING_MIN] = {"finding_min", 1.1,
                       "a relief under x1.1 is within try's noise on a shared host (FLAT_GAIN)"},
    [P_SHARE_MIN] = {"share_min", 0.05,
                     "the account's text names shares of 1% or more; a "
                     "finding needs five times that"},
    [P_STALL_MS] = {"stall_ms", 50,
                    "a loopback round trip is 0.05 ms and a wait for a CPU a scheduler slice "
                    "(CFS: 6-24 ms): 50 ms a trip outside the server is someone holding it"},
    [P_REDO_FULL] = {"redo_full", 0.875,
                     "the engine flushes pages ahead from 7/8 of its max checkpoint age "
                     "(max_modified_age_async); a write-heavy run's steady state was 0.80"},
    [P_CLEAR_OBS] = {"clear_obs", 30, "sampled sessions: 30 make a share's proportion +-18%"},
    [P_LIKELY_OBS] = {"likely_obs", 8, "sampled sessions: 8 make it +-35%"},
    [P_MIN_SHOWN] = {"min_shown", 0.01, "shares under 1% are noise in the text"},
    [P_THRESHOLD] = {"threshold", 0.3, "watch: a score below this names no limit"},
    [P_SMOOTH] = {"smooth", 0.5, "newest interval's weight: a 1 s burst halves within 2 s"},
    [P_HOST_FULL] = {"host_full", 90,
                     "host busy % of all cores: run-queue waits appear above it "
                     "(field trials 4-7, 2 cores)"},
    [P_FLAT_GAIN] = {"flat_gain", 0.10, "a doubling of clients gaining under 10% gains nothing"},
    [P_MIN_GAIN] = {"min_gain", 0.05, "steps smaller than a doubling: noise below 5%"},
    [P_LARGE_ROWS] = {"large_rows", 1000, "rows per transaction worth naming"},
    [P_SCAN_ROWS] = {"scan_rows", 10000,
                     "2M rows, 420k read a query at 58% hits: shared_buffers "
                     "x6 gave +9%, an index x2.3"},
    [P_IO_THREAD_RUNS] = {"io_thread_runs", 90,
                          "100 KB SETs, main thread at 94%: io-threads 2 "
                          "gave x2 (field trial 4, C9)"},
    [P_LARGE_BLOCKS] = {"large_blocks", 1000, "blocks per transaction worth naming"},
    [P_FAILING] = {"failing", 0.5, "half the transactions failing: the figures are the errors'"},
    [P_OTHERS_LARGE] = {"others_large", 0.25,
                        "two yes at 35% beside benchtop's 40%: stopping them "
                        "gave +34% (field trial 4, C13)"},
    [P_TEMP_NAMED] = {"temp_named", 1e6,
                      "temporary files of 1 MB/s: an external merge of 10 MB a "
                      "statement gained +114% from work_mem 64MB"},
    [P_SLEEP_NAMED] = {"sleep_named", 0.3, "statements' own sleeps named before the light load"},
    [P_MISSES_COST] = {"misses_cost", 0.9,
                       "a buffer pool missing a tenth at 1,000 reads/s: the "
                       "OS cache's copies are the server's CPU"},
    [P_STALL_LOOP] = {"stall_loop", 0.2,
                      "KEYS * over 1M keys, 40% in the slowlog: stopping it "
                      "gave x2.2"},
    [P_CONNECT_NAMED] = {"connect_named", 0.2,
                         "a web server at -C -c 16, connecting 22-40%: keeping "
                         "connections open gave x2.4-3.1"},
    [P_PAID] = {"paid", 0.5, "select-only on 2 cores: the server 149% -> 162% for +17% tps"},
    [P_WARM] = {"warm", 0.9,
                "a buffer pool's free pages: runs began with 2-5 intervals of misses while "
                "the pool filled (field trial 4)"},
    [P_CACHE_HITS] = {"cache_hits", 0.98, "a cache evicting at 98% hits or more still fits"},
    [P_MEMORY_HITS] = {"memory_hits", 0.95, "disk reads at under 95% hits: the pool is short"},
    [P_QUOTA_HELD] = {"quota_held", 10,
                      "not measured: a quota holding benchtop a tenth of the "
                      "interval is named before the host"},
    [P_WIRE_MS] = {"wire_ms", 1, "loopback's round trip is 0.05 ms; a proxy or link 1 ms or more"},
    [P_STEADY_RTT_MS] = {"steady_rtt_ms", 5,
                         "pings on a full host jitter 2.4-3.2 ms from tick to "
                         "tick; 5 ms or more is a wire"},
    [P_NETWORK_SHARE] = {"network_share", 0.35,
                         "not measured: round trips a third of the "
                         "latency"},
    [P_WANTS_CORE] = {"wants_core", 75,
                      "a thread at 45% and 49% waiting, host 85%: short of CPU, "
                      "not of threads"},
    [P_THREAD_FULL] = {"thread_full", 85,
                       "a cache's one thread at 52% + 40% waiting on a full "
                       "host: 4 threads gave +64%"},
    [P_PINNED_WAIT] = {"pinned_wait", 30,
                       "benchtop pinned, waiting 30% or more: unpinning gave "
                       "+8..53%; at 17-21% nothing (field trial 7, case 20)"},
    [P_SESSIONS_PER_CORE] = {"sessions_per_core", 8,
                             "select-only at -c 64 on 2 cores, server "
                             "170%: -c 8 gave +127% (field trial 7)"},
    [P_HOST_PART] = {"host_part", 0.15,
                     "two busy loops at 35% beside benchtop's 40% of a busy "
                     "host: stopping them gave +34% (field trial 4, C13)"},
    [P_SERVER_HOLDS] = {"server_holds", 0.5,
                        "a missing index at 8 clients, server 139% of 200%, "
                        "others 59%: the index gave x294"},
    [P_RUN_HOLDS] = {"run_holds", 0.6,
                     "select-only at 2 clients: server 121% and benchtop 78% "
                     "of 2 cores, each session on CPU a quarter of the time"},
    [P_CPU_FULL] = {"cpu_full", 0.7,
                    "a page's unindexed query: the app's workers waiting on the "
                    "scan with the server's CPU at 70% or more"},
    [P_COMMITS_MIN] = {"commits_min", 5,
                       "commits/s under which syncs per commit is noise: one sync more or less in "
                       "a 1 s interval moves it by 0.2"},
    [P_CLEAR_SCORE] = {"clear_score", 0.8,
                       "a share of 80% of the clients' time leaves every other under 20%"},
    [P_LIKELY_SCORE] = {"likely_score", 0.5,
                        "half the clients' time: no other share can be larger"},
    [P_CLOSE_SECOND] =
        {"close_second", 1.15,
         "a lead under 15%: the smoothed shares move that much from one 1 s interval to the next"},
    [P_CLEAR_MARGIN] = {"clear_margin", 1.5, "a lead of half again the next share: clear"},
    [P_RISING_INTERVALS] = {"rising_intervals", 3,
                            "intervals in a row of rising rows per transaction: a burst (an "
                            "autovacuum) lasts one or two"},
    [P_ROWS_RISE] =
        {"rows_rise", 1.05,
         "rows per transaction up 5% in an interval: growth beyond the smoothing's drift"},
    [P_SESSION_SEEN] =
        {"session_seen", 0.5,
         "session counts are averages over samples: half a session is one seen half the time"},
    [P_LOOP_QUEUE] = {"loop_queue", 32,
                      "an event loop on a full host with this many clients answers the ping after "
                      "every ready one (250 clients, loop at 40%: a queue)"},
    [P_LOOP_SLEEPS] = {"loop_sleeps", 0.5,
                       "an event loop under half its limit mostly sleeps (a cache at 11% with 8 "
                       "clients behind a 1 ms proxy: 4x clients gave x3.3)"},
    [P_PING_WAITS] =
        {"ping_waits", 1.5,
         "a transaction holds a round trip: a ping half again its mean latency waited for a CPU"},
    [P_RTT_JITTER] = {"rtt_jitter", 0.25,
                      "a wire's round trip stays within a quarter from tick to tick; CPU waits on "
                      "a full host jitter more (2.4-3.2 ms)"},
    [P_FLOOR_RTT] = {"floor_rtt", 0.5,
                     "the fastest 1% of transactions took half the ping or more a trip: a floor "
                     "every one pays (a 1 ms proxy: p1 over 2 ms)"},
    [P_OTHERS_SMALL] =
        {"others_small", 25,
         "others under a quarter of a core: the server and benchtop hold the host between them"},
    [P_BENCHTOP_BUSY] = {"benchtop_busy", 40,
                         "benchtop at 40% of a core or more takes the core a helper thread would "
                         "use (GET at -c 50, 78%: io-threads 2 gave -33%)"},
    [P_CORES_FREE] = {"cores_free", 0.5, "under half a core free, a new thread waits for one"},
    [P_MISS_READS] =
        {"miss_reads", 1000,
         "buffer reads a second whose copies are CPU worth naming (scale 30 on 128 MB: 75% hits)"},
    [P_SERVER_BUSY] = {"server_busy", 0.5,
                       "the server's CPU at half its capacity or more: where misses' copies cost"},
    [P_LATE] = {"late", 0.5,
                "-R: half the transactions started late: the rate is beyond the clients"},
    [P_ALL_BUSY] =
        {"all_busy", 0.9,
         "clients in flight at the tick: 90% is all of them but one between transactions at 10"},
    [P_RATE_KEPT] = {"rate_kept", 0.9,
                     "-R: 90% of the rate kept is the rate (Poisson arrivals vary by more in 1 s "
                     "at low rates)"},
    [P_SYNCS_NONE] = {"syncs_none", 0.05,
                      "log syncs per commit under this: the wait is no sync (a group commit "
                      "at 0.26 a commit still synced: flush=2 gave x6.1)"},
    [P_KERNEL_NAMED] = {"kernel_named", 5,
                        "the kernel's packet work named at 5% of a core (a cache at -c 500: 58%)"},
    [P_OTHERS_NAMED] = {"others_named", 20, "other programs named at a fifth of a core"},
    [P_WAIT_NAMED] = {"wait_named", 20,
                      "benchtop's thread waiting for a CPU a fifth of the time: named"},
    [P_CMD_FILLS] = {"cmd_fills", 0.25,
                     "one command a quarter of the busy thread's time: it fills the thread, not "
                     "the thread count"},
    [P_OWN_LIMIT] = {"own_limit", 0.15,
                     "the run's own wait beside a host others hold or a pool: a sixth of the "
                     "clients' time pays (commit 31%: synchronous_commit=off +63%)"},
    [P_WAIT_SHARE] =
        {"wait_share", 0.2,
         "a wait that is one whatever the load, at a fifth of the clients' time, leads past a "
         "light load (an event loop stalled 27% by a sleep: stopping it x1.57)"},
    [P_RUNQ_PART] = {"runq_part", 0.35,
                     "that wait against benchtop's wait for a CPU: a third or more, relieving it "
                     "pays (commit 20-29% beside waits 28-42%: off +18..50%)"},
    [P_REFUSED] = {"refused", 0.25,
                   "a quarter of the clients refused with the rest short of load: the refusal is "
                   "the limit (a limit of 10 clients at -c 50)"},
    [P_BLIND] = {"blind", 0.5,
                 "an interval whose account is half unknown did not see the server (a collector's "
                 "first sample)"},
    [P_IDLE_RATE] = {"idle_rate", 1,
                     "not measured: a monitor polling once a second; a cache at 48,000 "
                     "ops/s and an event loop at 38,000 commands/s were called idle by a rule on "
                     "sessions alone (a DBA's trial, issue 47)"},
    [P_IDLE_ACTIVE] = {"idle_active", 0.5,
                       "the old watch rule: under half a session active on average"},
    [P_WATCH_WAIT] = {"watch_wait", 0.35,
                      "the old watch rule named lock or commit waits at 36% of the "
                      "active sessions (a ramp from 25% to 60%, scored 0.3)"},
};

const struct param *
param_row(enum param_id id)
{
    return id >= 0 && id < P__COUNT ? &table[id] : NULL;
}

double
param(enum param_id id)
{
    return id >= 0 && id < P__COUNT ? table[id].value : 0;
}

/* A source's text for roff: backslashes and hyphens escaped (each line starts with the value). */
static void
man_text(FILE *out, const char *s)
{
    for (; *s; s++)
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
}

void
param_print_man(FILE *out)
{
    for (int i = 0; i < P__COUNT; i++) {
        fprintf(out, ".TP\n.B %s\n%g: ", table[i].name, table[i].value);
        man_text(out, table[i].source);
        fputc('\n', out);
    }
}
