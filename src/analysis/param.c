/* param: the thresholds' table (see param.h). */
#include "param.h"

#include <stddef.h>

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
