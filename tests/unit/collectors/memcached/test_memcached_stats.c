/*
 * memcached-stats and the collector's derive: `stats`, `stats slabs`,
 * `stats items` and `stats settings` captured from memcached 1.6.18 (a
 * throwaway server after sets of 40, 700 and 100,000 bytes with
 * evictions), a 1.4-style sample written from that version's
 * protocol.txt, malformed and truncated replies (an error, never a crash),
 * and rates from two hand-made samples checked exactly.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collectors/memcached/memcached.h"

/* ---- memcached 1.6.18, captured ---- */

static const char mc16_stats[] = "STAT pid 9595\r\n"
                                 "STAT uptime 4\r\n"
                                 "STAT time 1796036939\r\n"
                                 "STAT version 1.6.18\r\n"
                                 "STAT libevent 2.1.12-stable\r\n"
                                 "STAT pointer_size 64\r\n"
                                 "STAT rusage_user 0.241640\r\n"
                                 "STAT rusage_system 0.623724\r\n"
                                 "STAT max_connections 4096\r\n"
                                 "STAT curr_connections 1\r\n"
                                 "STAT total_connections 14\r\n"
                                 "STAT rejected_connections 0\r\n"
                                 "STAT connection_structures 5\r\n"
                                 "STAT response_obj_oom 0\r\n"
                                 "STAT response_obj_count 1\r\n"
                                 "STAT response_obj_bytes 65536\r\n"
                                 "STAT read_buf_count 8\r\n"
                                 "STAT read_buf_bytes 131072\r\n"
                                 "STAT read_buf_bytes_free 49152\r\n"
                                 "STAT read_buf_oom 0\r\n"
                                 "STAT reserved_fds 20\r\n"
                                 "STAT cmd_get 63181\r\n"
                                 "STAT cmd_set 31023\r\n"
                                 "STAT cmd_flush 0\r\n"
                                 "STAT cmd_touch 0\r\n"
                                 "STAT cmd_meta 0\r\n"
                                 "STAT get_hits 20646\r\n"
                                 "STAT get_misses 42535\r\n"
                                 "STAT get_expired 0\r\n"
                                 "STAT get_flushed 0\r\n"
                                 "STAT delete_misses 0\r\n"
                                 "STAT delete_hits 0\r\n"
                                 "STAT incr_misses 0\r\n"
                                 "STAT incr_hits 0\r\n"
                                 "STAT decr_misses 0\r\n"
                                 "STAT decr_hits 0\r\n"
                                 "STAT cas_misses 0\r\n"
                                 "STAT cas_hits 0\r\n"
                                 "STAT cas_badval 0\r\n"
                                 "STAT touch_hits 0\r\n"
                                 "STAT touch_misses 0\r\n"
                                 "STAT store_too_large 0\r\n"
                                 "STAT store_no_memory 0\r\n"
                                 "STAT auth_cmds 0\r\n"
                                 "STAT auth_errors 0\r\n"
                                 "STAT bytes_read 105106722\r\n"
                                 "STAT bytes_written 3264892\r\n"
                                 "STAT limit_maxbytes 67108864\r\n"
                                 "STAT accepting_conns 1\r\n"
                                 "STAT listen_disabled_num 0\r\n"
                                 "STAT time_in_listen_disabled_us 0\r\n"
                                 "STAT threads 4\r\n"
                                 "STAT conn_yields 0\r\n"
                                 "STAT hash_power_level 16\r\n"
                                 "STAT hash_bytes 524288\r\n"
                                 "STAT hash_is_expanding 0\r\n"
                                 "STAT slab_reassign_rescues 0\r\n"
                                 "STAT slab_reassign_chunk_rescues 0\r\n"
                                 "STAT slab_reassign_evictions_nomem 0\r\n"
                                 "STAT slab_reassign_inline_reclaim 0\r\n"
                                 "STAT slab_reassign_busy_items 0\r\n"
                                 "STAT slab_reassign_busy_deletes 0\r\n"
                                 "STAT slab_reassign_running 0\r\n"
                                 "STAT slabs_moved 0\r\n"
                                 "STAT lru_crawler_running 0\r\n"
                                 "STAT lru_crawler_starts 1\r\n"
                                 "STAT lru_maintainer_juggles 2069\r\n"
                                 "STAT malloc_fails 0\r\n"
                                 "STAT log_worker_dropped 0\r\n"
                                 "STAT log_worker_written 0\r\n"
                                 "STAT log_watcher_skipped 0\r\n"
                                 "STAT log_watcher_sent 0\r\n"
                                 "STAT log_watchers 0\r\n"
                                 "STAT unexpected_napi_ids 0\r\n"
                                 "STAT round_robin_fallback 0\r\n"
                                 "STAT bytes 1616531\r\n"
                                 "STAT curr_items 9641\r\n"
                                 "STAT total_items 31023\r\n"
                                 "STAT slab_global_page_pool 0\r\n"
                                 "STAT expired_unfetched 0\r\n"
                                 "STAT evicted_unfetched 15805\r\n"
                                 "STAT evicted_active 3\r\n"
                                 "STAT evictions 18198\r\n"
                                 "STAT reclaimed 0\r\n"
                                 "STAT crawler_reclaimed 0\r\n"
                                 "STAT crawler_items_checked 0\r\n"
                                 "STAT lrutail_reflocked 3\r\n"
                                 "STAT moves_to_cold 29053\r\n"
                                 "STAT moves_to_warm 5553\r\n"
                                 "STAT moves_within_lru 1987\r\n"
                                 "STAT direct_reclaims 26402\r\n"
                                 "STAT lru_bumps_dropped 0\r\n"
                                 "END\r\n";

static const char mc16_slabs[] = "STAT 2:chunk_size 120\r\n"
                                 "STAT 2:chunks_per_page 8738\r\n"
                                 "STAT 2:total_pages 1\r\n"
                                 "STAT 2:total_chunks 8738\r\n"
                                 "STAT 2:used_chunks 8738\r\n"
                                 "STAT 2:free_chunks 0\r\n"
                                 "STAT 2:free_chunks_end 0\r\n"
                                 "STAT 2:get_hits 18581\r\n"
                                 "STAT 2:cmd_set 27023\r\n"
                                 "STAT 2:delete_hits 0\r\n"
                                 "STAT 2:incr_hits 0\r\n"
                                 "STAT 2:decr_hits 0\r\n"
                                 "STAT 2:cas_hits 0\r\n"
                                 "STAT 2:cas_badval 0\r\n"
                                 "STAT 2:touch_hits 0\r\n"
                                 "STAT 11:chunk_size 944\r\n"
                                 "STAT 11:chunks_per_page 1110\r\n"
                                 "STAT 11:total_pages 1\r\n"
                                 "STAT 11:total_chunks 1110\r\n"
                                 "STAT 11:used_chunks 903\r\n"
                                 "STAT 11:free_chunks 207\r\n"
                                 "STAT 11:free_chunks_end 0\r\n"
                                 "STAT 11:get_hits 2065\r\n"
                                 "STAT 11:cmd_set 3000\r\n"
                                 "STAT 11:delete_hits 0\r\n"
                                 "STAT 11:incr_hits 0\r\n"
                                 "STAT 11:decr_hits 0\r\n"
                                 "STAT 11:cas_hits 0\r\n"
                                 "STAT 11:cas_badval 0\r\n"
                                 "STAT 11:touch_hits 0\r\n"
                                 "STAT 32:chunk_size 103496\r\n"
                                 "STAT 32:chunks_per_page 10\r\n"
                                 "STAT 32:total_pages 64\r\n"
                                 "STAT 32:total_chunks 640\r\n"
                                 "STAT 32:used_chunks 0\r\n"
                                 "STAT 32:free_chunks 640\r\n"
                                 "STAT 32:free_chunks_end 0\r\n"
                                 "STAT 32:get_hits 0\r\n"
                                 "STAT 32:cmd_set 1000\r\n"
                                 "STAT 32:delete_hits 0\r\n"
                                 "STAT 32:incr_hits 0\r\n"
                                 "STAT 32:decr_hits 0\r\n"
                                 "STAT 32:cas_hits 0\r\n"
                                 "STAT 32:cas_badval 0\r\n"
                                 "STAT 32:touch_hits 0\r\n"
                                 "STAT active_slabs 3\r\n"
                                 "STAT total_malloced 69206016\r\n"
                                 "END\r\n";

static const char mc16_items[] = "STAT items:2:number 8738\r\n"
                                 "STAT items:2:number_hot 0\r\n"
                                 "STAT items:2:number_warm 3422\r\n"
                                 "STAT items:2:number_cold 5316\r\n"
                                 "STAT items:2:age_hot 0\r\n"
                                 "STAT items:2:age_warm 1\r\n"
                                 "STAT items:2:age 2\r\n"
                                 "STAT items:2:mem_requested 920318\r\n"
                                 "STAT items:2:evicted 16308\r\n"
                                 "STAT items:2:evicted_nonzero 0\r\n"
                                 "STAT items:2:evicted_time 1\r\n"
                                 "STAT items:2:outofmemory 0\r\n"
                                 "STAT items:2:tailrepairs 0\r\n"
                                 "STAT items:2:reclaimed 0\r\n"
                                 "STAT items:2:expired_unfetched 0\r\n"
                                 "STAT items:2:evicted_unfetched 13915\r\n"
                                 "STAT items:2:evicted_active 3\r\n"
                                 "STAT items:2:crawler_reclaimed 0\r\n"
                                 "STAT items:2:crawler_items_checked 0\r\n"
                                 "STAT items:2:lrutail_reflocked 3\r\n"
                                 "STAT items:2:moves_to_cold 27157\r\n"
                                 "STAT items:2:moves_to_warm 4936\r\n"
                                 "STAT items:2:moves_within_lru 1788\r\n"
                                 "STAT items:2:direct_reclaims 22622\r\n"
                                 "STAT items:2:hits_to_hot 3363\r\n"
                                 "STAT items:2:hits_to_warm 4087\r\n"
                                 "STAT items:2:hits_to_cold 11131\r\n"
                                 "STAT items:2:hits_to_temp 0\r\n"
                                 "STAT items:11:number 903\r\n"
                                 "STAT items:11:number_hot 0\r\n"
                                 "STAT items:11:number_warm 361\r\n"
                                 "STAT items:11:number_cold 542\r\n"
                                 "STAT items:11:age_hot 0\r\n"
                                 "STAT items:11:age_warm 2\r\n"
                                 "STAT items:11:age 2\r\n"
                                 "STAT items:11:mem_requested 696213\r\n"
                                 "STAT items:11:evicted 1890\r\n"
                                 "STAT items:11:evicted_nonzero 0\r\n"
                                 "STAT items:11:evicted_time 0\r\n"
                                 "STAT items:11:outofmemory 0\r\n"
                                 "STAT items:11:tailrepairs 0\r\n"
                                 "STAT items:11:reclaimed 0\r\n"
                                 "STAT items:11:expired_unfetched 0\r\n"
                                 "STAT items:11:evicted_unfetched 1890\r\n"
                                 "STAT items:11:evicted_active 0\r\n"
                                 "STAT items:11:crawler_reclaimed 0\r\n"
                                 "STAT items:11:crawler_items_checked 0\r\n"
                                 "STAT items:11:lrutail_reflocked 0\r\n"
                                 "STAT items:11:moves_to_cold 3181\r\n"
                                 "STAT items:11:moves_to_warm 677\r\n"
                                 "STAT items:11:moves_within_lru 245\r\n"
                                 "STAT items:11:direct_reclaims 3780\r\n"
                                 "STAT items:11:hits_to_hot 313\r\n"
                                 "STAT items:11:hits_to_warm 457\r\n"
                                 "STAT items:11:hits_to_cold 1295\r\n"
                                 "STAT items:11:hits_to_temp 0\r\n"
                                 "END\r\n";

static const char mc16_settings[] = "STAT maxbytes 67108864\r\n"
                                    "STAT maxconns 4096\r\n"
                                    "STAT tcpport 47017\r\n"
                                    "STAT udpport 0\r\n"
                                    "STAT inter 127.0.0.1\r\n"
                                    "STAT verbosity 0\r\n"
                                    "STAT oldest 0\r\n"
                                    "STAT evictions on\r\n"
                                    "STAT domain_socket NULL\r\n"
                                    "STAT umask 700\r\n"
                                    "STAT shutdown_command no\r\n"
                                    "STAT growth_factor 1.25\r\n"
                                    "STAT chunk_size 48\r\n"
                                    "STAT num_threads 4\r\n"
                                    "STAT num_threads_per_udp 4\r\n"
                                    "STAT stat_key_prefix :\r\n"
                                    "STAT detail_enabled no\r\n"
                                    "STAT reqs_per_event 20\r\n"
                                    "STAT cas_enabled yes\r\n"
                                    "STAT tcp_backlog 1024\r\n"
                                    "STAT binding_protocol auto-negotiate\r\n"
                                    "STAT auth_enabled_sasl no\r\n"
                                    "STAT auth_enabled_ascii no\r\n"
                                    "STAT item_size_max 1048576\r\n"
                                    "STAT maxconns_fast yes\r\n"
                                    "STAT hashpower_init 0\r\n"
                                    "STAT slab_reassign yes\r\n"
                                    "STAT slab_automove 1\r\n"
                                    "STAT slab_automove_ratio 0.80\r\n"
                                    "STAT slab_automove_window 30\r\n"
                                    "STAT slab_chunk_max 524288\r\n"
                                    "STAT lru_crawler yes\r\n"
                                    "STAT lru_crawler_sleep 100\r\n"
                                    "STAT lru_crawler_tocrawl 0\r\n"
                                    "STAT tail_repair_time 0\r\n"
                                    "STAT flush_enabled yes\r\n"
                                    "STAT dump_enabled yes\r\n"
                                    "STAT hash_algorithm murmur3\r\n"
                                    "STAT lru_maintainer_thread yes\r\n"
                                    "STAT lru_segmented yes\r\n"
                                    "STAT hot_lru_pct 20\r\n"
                                    "STAT warm_lru_pct 40\r\n"
                                    "STAT hot_max_factor 0.20\r\n"
                                    "STAT warm_max_factor 2.00\r\n"
                                    "STAT temp_lru no\r\n"
                                    "STAT temporary_ttl 61\r\n"
                                    "STAT idle_timeout 0\r\n"
                                    "STAT watcher_logbuf_size 262144\r\n"
                                    "STAT worker_logbuf_size 65536\r\n"
                                    "STAT read_buf_mem_limit 0\r\n"
                                    "STAT track_sizes no\r\n"
                                    "STAT inline_ascii_response no\r\n"
                                    "STAT ext_item_size 512\r\n"
                                    "STAT ext_item_age 4294967295\r\n"
                                    "STAT ext_low_ttl 0\r\n"
                                    "STAT ext_recache_rate 2000\r\n"
                                    "STAT ext_wbuf_size 4194304\r\n"
                                    "STAT ext_compact_under 0\r\n"
                                    "STAT ext_drop_under 0\r\n"
                                    "STAT ext_max_sleep 1000000\r\n"
                                    "STAT ext_max_frag 0.80\r\n"
                                    "STAT slab_automove_freeratio 0.010\r\n"
                                    "STAT ext_drop_unread no\r\n"
                                    "STAT ssl_enabled no\r\n"
                                    "STAT ssl_chain_cert (null)\r\n"
                                    "STAT ssl_key (null)\r\n"
                                    "STAT ssl_verify_mode 0\r\n"
                                    "STAT ssl_keyformat 1\r\n"
                                    "STAT ssl_ciphers NULL\r\n"
                                    "STAT ssl_ca_cert NULL\r\n"
                                    "STAT ssl_wbuf_size 16384\r\n"
                                    "STAT ssl_session_cache no\r\n"
                                    "STAT ssl_kernel_tls no\r\n"
                                    "STAT ssl_min_version tlsv1.2\r\n"
                                    "STAT num_napi_ids (null)\r\n"
                                    "STAT memory_file (null)\r\n"
                                    "END\r\n";

/* ---- memcached 1.4, from its protocol.txt (rusage as "seconds:microseconds", as documented) ----
 */

static const char mc14_stats[] = "STAT pid 2257\r\n"
                                 "STAT uptime 86400\r\n"
                                 "STAT time 1300000000\r\n"
                                 "STAT version 1.4.5\r\n"
                                 "STAT pointer_size 64\r\n"
                                 "STAT rusage_user 12:340000\r\n"
                                 "STAT rusage_system 56:78\r\n"
                                 "STAT curr_connections 10\r\n"
                                 "STAT total_connections 1500\r\n"
                                 "STAT connection_structures 12\r\n"
                                 "STAT cmd_get 500000\r\n"
                                 "STAT cmd_set 120000\r\n"
                                 "STAT cmd_flush 0\r\n"
                                 "STAT get_hits 450000\r\n"
                                 "STAT get_misses 50000\r\n"
                                 "STAT delete_misses 0\r\n"
                                 "STAT delete_hits 0\r\n"
                                 "STAT incr_misses 0\r\n"
                                 "STAT incr_hits 0\r\n"
                                 "STAT decr_misses 0\r\n"
                                 "STAT decr_hits 0\r\n"
                                 "STAT cas_misses 0\r\n"
                                 "STAT cas_hits 0\r\n"
                                 "STAT cas_badval 0\r\n"
                                 "STAT bytes_read 40000000\r\n"
                                 "STAT bytes_written 90000000\r\n"
                                 "STAT limit_maxbytes 67108864\r\n"
                                 "STAT accepting_conns 1\r\n"
                                 "STAT listen_disabled_num 3\r\n"
                                 "STAT threads 4\r\n"
                                 "STAT conn_yields 0\r\n"
                                 "STAT bytes 5000000\r\n"
                                 "STAT curr_items 60000\r\n"
                                 "STAT total_items 120000\r\n"
                                 "STAT evictions 20\r\n"
                                 "STAT reclaimed 0\r\n"
                                 "END\r\n";

static const char mc14_slabs[] = "STAT 1:chunk_size 96\r\n"
                                 "STAT 1:chunks_per_page 10922\r\n"
                                 "STAT 1:total_pages 1\r\n"
                                 "STAT 1:total_chunks 10922\r\n"
                                 "STAT 1:used_chunks 100\r\n"
                                 "STAT 1:free_chunks 10822\r\n"
                                 "STAT 1:free_chunks_end 0\r\n"
                                 "STAT 1:mem_requested 7500\r\n"
                                 "STAT 1:get_hits 400\r\n"
                                 "STAT 1:cmd_set 100\r\n"
                                 "STAT 1:delete_hits 0\r\n"
                                 "STAT 1:incr_hits 0\r\n"
                                 "STAT 1:decr_hits 0\r\n"
                                 "STAT 1:cas_hits 0\r\n"
                                 "STAT 1:cas_badval 0\r\n"
                                 "STAT 5:chunk_size 240\r\n"
                                 "STAT 5:chunks_per_page 4369\r\n"
                                 "STAT 5:total_pages 2\r\n"
                                 "STAT 5:total_chunks 8738\r\n"
                                 "STAT 5:used_chunks 4000\r\n"
                                 "STAT 5:free_chunks 4738\r\n"
                                 "STAT 5:free_chunks_end 0\r\n"
                                 "STAT 5:mem_requested 800000\r\n"
                                 "STAT 5:get_hits 9000\r\n"
                                 "STAT 5:cmd_set 4020\r\n"
                                 "STAT 5:delete_hits 0\r\n"
                                 "STAT 5:incr_hits 0\r\n"
                                 "STAT 5:decr_hits 0\r\n"
                                 "STAT 5:cas_hits 0\r\n"
                                 "STAT 5:cas_badval 0\r\n"
                                 "STAT active_slabs 2\r\n"
                                 "STAT total_malloced 3145728\r\n"
                                 "END\r\n";

static const char mc14_items[] = "STAT items:1:number 100\r\n"
                                 "STAT items:1:age 3600\r\n"
                                 "STAT items:1:evicted 0\r\n"
                                 "STAT items:1:evicted_nonzero 0\r\n"
                                 "STAT items:1:evicted_time 0\r\n"
                                 "STAT items:1:outofmemory 0\r\n"
                                 "STAT items:1:tailrepairs 0\r\n"
                                 "STAT items:1:reclaimed 0\r\n"
                                 "STAT items:5:number 4000\r\n"
                                 "STAT items:5:age 1200\r\n"
                                 "STAT items:5:evicted 20\r\n"
                                 "STAT items:5:evicted_nonzero 0\r\n"
                                 "STAT items:5:evicted_time 30\r\n"
                                 "STAT items:5:outofmemory 2\r\n"
                                 "STAT items:5:tailrepairs 0\r\n"
                                 "STAT items:5:reclaimed 0\r\n"
                                 "END\r\n";

/* ---- helpers ---- */

static void
expect_error(int (*parse)(const char *, size_t, void *, char *), const char *text,
             const char *words)
{
    char err[BT_ERRLEN] = "";
    struct mc_sample s;

    memset(&s, 0, sizeof s);
    assert_int_equal(parse(text, strlen(text), &s, err), -1);
    if (strstr(err, words) == NULL)
        fail_msg("'%s' not in '%s'", words, err);
}

static int
parse_stats(const char *t, size_t n, void *s, char *err)
{
    return mc_stats_parse(t, n, &((struct mc_sample *)s)->st, err);
}

static int
parse_slabs(const char *t, size_t n, void *s, char *err)
{
    return mc_slabs_parse(t, n, &((struct mc_sample *)s)->slabs, err);
}

static int
parse_items(const char *t, size_t n, void *s, char *err)
{
    return mc_items_parse(t, n, &((struct mc_sample *)s)->slabs, err);
}

/* Every prefix of a reply that stops before its END is cut short: an error, never a crash. */
static void
expect_truncations_fail(int (*parse)(const char *, size_t, void *, char *), const char *text)
{
    size_t len = strlen(text);
    char err[BT_ERRLEN];
    struct mc_sample *s = malloc(sizeof *s);

    for (size_t cut = 0; cut < len; cut++) {
        /* an exact-size heap copy: a read past the end is caught by AddressSanitizer */
        char *copy = malloc(cut + 1);
        memcpy(copy, text, cut);
        memset(s, 0, sizeof *s);
        assert_int_equal(parse(copy, cut, s, err), -1);
        free(copy);
    }
    memset(s, 0, sizeof *s);
    assert_int_equal(parse(text, len, s, err), 0);
    free(s);
}

static void
set(struct mc_sample *s, enum mc_stat_field f, uint64_t v)
{
    s->st.v[f] = v;
    s->st.have |= 1u << f;
}

static const struct coll_row *
row(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    if (r == NULL)
        fail_msg("no row %s/%s", section, label);
    return r;
}

/* ---- parsing ---- */

static void
test_stats_16(void **state)
{
    (void)state;
    struct mc_stats st;
    char err[BT_ERRLEN];

    assert_int_equal(mc_stats_parse(mc16_stats, strlen(mc16_stats), &st, err), 0);
    assert_string_equal(st.version, "1.6.18");
    assert_int_equal(st.v[MCS_PID], 9595);
    assert_int_equal(st.v[MCS_UPTIME], 4);
    assert_int_equal(st.v[MCS_RUSAGE_USER], 241640);
    assert_int_equal(st.v[MCS_RUSAGE_SYSTEM], 623724);
    assert_int_equal(st.v[MCS_MAX_CONNECTIONS], 4096);
    assert_int_equal(st.v[MCS_CURR_CONNECTIONS], 1);
    assert_int_equal(st.v[MCS_TOTAL_CONNECTIONS], 14);
    assert_int_equal(st.v[MCS_CMD_GET], 63181);
    assert_int_equal(st.v[MCS_CMD_SET], 31023);
    assert_int_equal(st.v[MCS_GET_HITS], 20646);
    assert_int_equal(st.v[MCS_GET_MISSES], 42535);
    assert_int_equal(st.v[MCS_BYTES_READ], 105106722);
    assert_int_equal(st.v[MCS_LIMIT_MAXBYTES], 67108864);
    assert_int_equal(st.v[MCS_THREADS], 4);
    assert_int_equal(st.v[MCS_BYTES], 1616531);
    assert_int_equal(st.v[MCS_CURR_ITEMS], 9641);
    assert_int_equal(st.v[MCS_TOTAL_ITEMS], 31023);
    assert_int_equal(st.v[MCS_EVICTIONS], 18198);
    /* 1.6 has every field benchtop reads */
    assert_int_equal(st.have, (1u << MCS__COUNT) - 1);
}

static void
test_slabs_items_16(void **state)
{
    (void)state;
    struct mc_slabs sl;
    char err[BT_ERRLEN];

    memset(&sl, 0, sizeof sl);
    assert_int_equal(mc_slabs_parse(mc16_slabs, strlen(mc16_slabs), &sl, err), 0);
    assert_int_equal(mc_items_parse(mc16_items, strlen(mc16_items), &sl, err), 0);
    assert_int_equal(sl.nclasses, 3);
    assert_int_equal(sl.total_malloced, 69206016);
    assert_true(sl.cls[2].present && sl.cls[11].present && sl.cls[32].present);
    assert_false(sl.cls[1].present);
    assert_int_equal(sl.cls[2].chunk_size, 120);
    assert_int_equal(sl.cls[2].total_chunks, 8738);
    assert_int_equal(sl.cls[2].items, 8738);
    assert_int_equal(sl.cls[2].evicted, 16308);
    assert_int_equal(sl.cls[2].mem_requested, 920318);
    assert_int_equal(sl.cls[11].chunk_size, 944);
    assert_int_equal(sl.cls[11].used_chunks, 903);
    assert_int_equal(sl.cls[11].evicted, 1890);
    /* class 32 lost all its items: it is in `stats slabs` only */
    assert_int_equal(sl.cls[32].total_pages, 64);
    assert_int_equal(sl.cls[32].items, 0);
}

static void
test_settings_find(void **state)
{
    (void)state;
    uint64_t v = 0;

    assert_int_equal(mc_stats_find(mc16_settings, strlen(mc16_settings), "item_size_max", &v), 0);
    assert_int_equal(v, 1048576);
    assert_int_equal(mc_stats_find(mc16_settings, strlen(mc16_settings), "maxconns", &v), 0);
    assert_int_equal(v, 4096);
    /* not a number ("on"), and absent */
    assert_int_equal(mc_stats_find(mc16_settings, strlen(mc16_settings), "evictions", &v), -1);
    assert_int_equal(mc_stats_find(mc16_settings, strlen(mc16_settings), "no_such", &v), -1);
}

static void
test_stats_14(void **state)
{
    (void)state;
    struct mc_stats st;
    struct mc_slabs sl;
    char err[BT_ERRLEN];

    assert_int_equal(mc_stats_parse(mc14_stats, strlen(mc14_stats), &st, err), 0);
    assert_string_equal(st.version, "1.4.5");
    /* "seconds:microseconds": 12.34 s and 56.000078 s */
    assert_int_equal(st.v[MCS_RUSAGE_USER], 12340000);
    assert_int_equal(st.v[MCS_RUSAGE_SYSTEM], 56000078);
    assert_int_equal(st.v[MCS_LISTEN_DISABLED_NUM], 3);
    assert_false(mc_stat_has(&st, MCS_MAX_CONNECTIONS));
    assert_false(mc_stat_has(&st, MCS_REJECTED_CONNECTIONS));
    assert_false(mc_stat_has(&st, MCS_GET_EXPIRED));
    assert_true(mc_stat_has(&st, MCS_CONN_YIELDS));
    assert_int_equal(st.v[MCS_MAX_CONNECTIONS], 0);

    memset(&sl, 0, sizeof sl);
    assert_int_equal(mc_slabs_parse(mc14_slabs, strlen(mc14_slabs), &sl, err), 0);
    assert_int_equal(mc_items_parse(mc14_items, strlen(mc14_items), &sl, err), 0);
    assert_int_equal(sl.nclasses, 2);
    assert_int_equal(sl.cls[5].mem_requested, 800000);
    assert_int_equal(sl.cls[5].items, 4000);
    assert_int_equal(sl.cls[5].evicted, 20);
    assert_int_equal(sl.cls[5].outofmemory, 2);
    assert_int_equal(sl.total_malloced, 3145728);
}

static void
test_rusage_dot_fraction(void **state)
{
    (void)state;
    struct mc_stats st;
    char err[BT_ERRLEN];
    const char *t = "STAT rusage_user 3.5\r\nSTAT rusage_system 0.000001\r\nEND\r\n";

    assert_int_equal(mc_stats_parse(t, strlen(t), &st, err), 0);
    assert_int_equal(st.v[MCS_RUSAGE_USER], 3500000);
    assert_int_equal(st.v[MCS_RUSAGE_SYSTEM], 1);
}

static void
test_truncated(void **state)
{
    (void)state;
    expect_truncations_fail(parse_stats, mc16_stats);
    expect_truncations_fail(parse_slabs, mc16_slabs);
    expect_truncations_fail(parse_items, mc16_items);
    expect_truncations_fail(parse_stats, mc14_stats);
}

static void
test_malformed(void **state)
{
    (void)state;
    expect_error(parse_stats, "STAT cmd_get 12x\r\nEND\r\n", "cmd_get is \"12x\", not a number");
    expect_error(parse_stats, "STAT cmd_get -1\r\nEND\r\n", "not a number");
    expect_error(parse_stats, "STAT cmd_get 99999999999999999999999\r\nEND\r\n", "not a number");
    expect_error(parse_stats, "STAT rusage_user 1.2345678\r\nEND\r\n", "rusage_user");
    expect_error(parse_stats, "STAT rusage_user 1.\r\nEND\r\n", "rusage_user");
    expect_error(parse_stats, "STAT pid 1\r\nhello\r\nEND\r\n", "line 2");
    expect_error(parse_stats, "STAT pid\r\nEND\r\n", "line 1");
    expect_error(parse_stats, "ERROR\r\n", "refused");
    expect_error(parse_stats, "SERVER_ERROR out of memory\r\n", "refused");
    expect_error(parse_stats, "-ERR unknown command 'stats'\r\n", "malformed");
    expect_error(parse_stats, "STAT pid 1\r\nEND\r\nSTAT pid 2\r\nEND\r\n", "after END");
    expect_error(parse_stats, "", "cut short");
    expect_error(parse_slabs, "STAT 99:chunk_size 96\r\nEND\r\n", "out of range");
    expect_error(parse_slabs, "STAT 0:chunk_size 96\r\nEND\r\n", "out of range");
    expect_error(parse_slabs, "STAT 1chunk_size 96\r\nEND\r\n", "malformed slab");
    expect_error(parse_slabs, "STAT 1:chunk_size big\r\nEND\r\n", "not a number");
    expect_error(parse_items, "STAT items:x:number 5\r\nEND\r\n", "malformed slab");
    expect_error(parse_items, "STAT number 5\r\nEND\r\n", "malformed items");
    expect_error(parse_items, "STAT items:3:evicted -\r\nEND\r\n", "not a number");
}

/* ---- derive ---- */

/* Two samples 2 s apart with round deltas, so every rate has one right value. */
static void
hand_made(struct mc_sample *a, struct mc_sample *b)
{
    memset(a, 0, sizeof *a);
    set(a, MCS_PID, 77);
    set(a, MCS_UPTIME, 100);
    set(a, MCS_THREADS, 4);
    set(a, MCS_MAX_CONNECTIONS, 1024);
    set(a, MCS_CURR_CONNECTIONS, 10);
    set(a, MCS_TOTAL_CONNECTIONS, 10);
    set(a, MCS_REJECTED_CONNECTIONS, 0);
    set(a, MCS_CMD_GET, 1000);
    set(a, MCS_CMD_SET, 100);
    set(a, MCS_GET_HITS, 900);
    set(a, MCS_GET_MISSES, 100);
    set(a, MCS_RUSAGE_USER, 1000000);
    set(a, MCS_RUSAGE_SYSTEM, 500000);
    set(a, MCS_LISTEN_DISABLED_NUM, 0);
    set(a, MCS_CONN_YIELDS, 0);
    set(a, MCS_EVICTIONS, 5);
    set(a, MCS_LIMIT_MAXBYTES, 64 << 20);
    set(a, MCS_BYTES, 16 << 20);
    set(a, MCS_CURR_ITEMS, 500);
    a->have_slabs = 1;
    a->slabs.nclasses = 2;
    a->slabs.total_malloced = 3 << 20;
    a->slabs.cls[1] = (struct mc_slab_class){
        .chunk_size = 96, .total_chunks = 10922, .items = 100, .evicted = 0, .present = 1};
    a->slabs.cls[5] = (struct mc_slab_class){
        .chunk_size = 240, .total_chunks = 8738, .items = 4000, .evicted = 5, .present = 1};
    *b = *a;
    set(b, MCS_UPTIME, 102);
    set(b, MCS_CURR_CONNECTIONS, 12);
    set(b, MCS_TOTAL_CONNECTIONS, 30);
    set(b, MCS_CMD_GET, 3000);
    set(b, MCS_CMD_SET, 300);
    set(b, MCS_GET_HITS, 2700);
    set(b, MCS_GET_MISSES, 300);
    set(b, MCS_RUSAGE_USER, 2000000);
    set(b, MCS_RUSAGE_SYSTEM, 1000000);
    set(b, MCS_LISTEN_DISABLED_NUM, 2);
    set(b, MCS_EVICTIONS, 25);
    set(b, MCS_BYTES, 32 << 20);
    set(b, MCS_CURR_ITEMS, 700);
    b->slabs.cls[5].evicted = 25;
    b->slabs.cls[5].items = 4200;
}

static void
test_derive_rates(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_true(row(&v, "commands", "get/s")->num == 1000.0);
    assert_string_equal(row(&v, "commands", "get/s")->value, "1000.0");
    assert_true(row(&v, "commands", "set/s")->num == 100.0);
    assert_true(row(&v, "commands", "hits/s")->num == 900.0);
    assert_true(row(&v, "commands", "misses/s")->num == 100.0);
    assert_true(row(&v, "commands", "hit %")->num == 90.0);
    assert_int_equal(row(&v, "commands", "hit %")->level, ROW_GOOD);
    assert_true(v.server_tps == 1100.0);

    assert_true(row(&v, "connections", "current")->num == 12.0);
    assert_string_equal(row(&v, "connections", "current")->value, "12 of 1024");
    assert_true(row(&v, "connections", "new/s")->num == 10.0);
    assert_true(row(&v, "connections", "rejected/s")->num == 0.0);
    assert_true(row(&v, "connections", "listen_disabled/s")->num == 1.0);
    assert_int_equal(row(&v, "connections", "listen_disabled/s")->level, ROW_BAD);
    assert_true(row(&v, "connections", "conn_yields/s")->num == 0.0);

    /* 1.5 CPU seconds in 2 s = 0.75 of 4 threads */
    assert_true(row(&v, "cpu", "user+sys")->num == 18.75);
    assert_string_equal(row(&v, "cpu", "user+sys")->value, "0.75 of 4 threads (19%)");
    assert_true(row(&v, "cpu", "user")->num == 0.5);
    assert_true(row(&v, "cpu", "system")->num == 0.25);

    assert_true(row(&v, "memory", "bytes")->num == 50.0);
    assert_string_equal(row(&v, "memory", "bytes")->value, "32.0 of 64.0 MB (50%)");
    assert_true(row(&v, "memory", "items")->num == 700.0);
    assert_true(row(&v, "memory", "evictions/s")->num == 10.0);
    assert_int_equal(row(&v, "memory", "evictions/s")->level, ROW_WARN);

    assert_int_equal(v.nevents, 2);
    assert_string_equal(v.events[0], "connection limit reached: listening stopped 2 times");
    assert_string_equal(v.events[1], "20 items evicted: memory is full");
    assert_string_equal(v.note, "");
}

/*
 * The evidence for the verdict: evictions/s, hit ratio, bytes of -m, the
 * worker threads (-t) with the busiest one, rusage as the server's own
 * CPU; on a 2-core host 4 threads can use 2 cores, not 4.
 */
static void
test_derive_signals(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    a.ntasks = b.ntasks = 3;
    a.tasks[0] = (struct cpu_task){77, 0.5, 0};
    a.tasks[1] = (struct cpu_task){78, 10.0, 0};
    a.tasks[2] = (struct cpu_task){79, 3.0, 0};
    b.tasks[0] = (struct cpu_task){77, 0.52, 0};
    b.tasks[1] = (struct cpu_task){78, 11.78, 0};
    b.tasks[2] = (struct cpu_task){79, 3.2, 0};
    b.cores = 2;
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_true(v.sig.evictions_s == 10.0);
    assert_true(fabs(v.sig.hit_ratio - 0.9) < 1e-9);
    assert_true(v.sig.mem_used == 32 << 20);
    assert_true(v.sig.mem_limit == 64 << 20);
    assert_string_equal(v.sig.mem_limit_setting, "-m");
    assert_true(v.sig.server_threads == 4);
    assert_string_equal(v.sig.threads_setting, "-t");
    assert_true(fabs(v.sig.thread_max_pct - 89.0) < 1e-9);
    assert_string_equal(row(&v, "cpu", "threads")->value, "4 (-t), busiest 89%");
    assert_true(v.sig.server_cpu_self_pct == 75.0);
    assert_true(v.sig.server_cpu_limit == 200.0); /* 2 cores, not 4 threads' 400 */
    b.cores = 8;
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_true(v.sig.server_cpu_limit == 400.0);
    /* a remote server: no threads from /proc, the rest as it reports */
    b.ntasks = -1;
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_true(isnan(v.sig.thread_max_pct));
    assert_string_equal(row(&v, "cpu", "threads")->value, "4 (-t)");
    /* one eviction in a minute is not 0.0/s */
    memcached_collector_class.derive(&a, &b, 60.0, &v);
    set(&b, MCS_EVICTIONS, 6);
    memcached_collector_class.derive(&a, &b, 60.0, &v);
    assert_string_equal(row(&v, "memory", "evictions/s")->value, "0.017");
}

static void
test_derive_slabs(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_string_equal(row(&v, "slabs", "classes")->value, "2 active, 3.0 MB malloced");
    /* class 5 holds more memory (8738 x 240 B): it comes first */
    const struct coll_row *c5 = row(&v, "slabs", "class 5 (240 B)");
    const struct coll_row *c1 = row(&v, "slabs", "class 1 (96 B)");
    assert_true(c5 < c1);
    assert_string_equal(c5->value, "4200 items, 10.0 evict/s, 2.0 MB");
    assert_int_equal(c5->level, ROW_WARN);
    assert_string_equal(c1->value, "100 items, 0.0 evict/s, 1.0 MB");
    assert_int_equal(c1->level, ROW_NORMAL);
}

/* More classes than rows: the smallest are summed. */
static void
test_derive_many_classes(void **state)
{
    (void)state;
    struct mc_sample s;
    struct coll_view v;

    memset(&s, 0, sizeof s);
    s.have_slabs = 1;
    for (int id = 1; id <= 12; id++)
        s.slabs.cls[id] = (struct mc_slab_class){
            .chunk_size = (uint64_t)id * 100, .total_chunks = 1000, .items = 10, .present = 1};
    s.slabs.nclasses = 12;
    memcached_collector_class.derive(NULL, &s, 1.0, &v);
    /* classes 12 .. 5 shown, 4 .. 1 summed: 4 x 1000 x (100 + 200 + 300 + 400) bytes */
    assert_non_null(coll_row_find(&v, "slabs", "class 12 (1200 B)"));
    assert_non_null(coll_row_find(&v, "slabs", "class 5 (500 B)"));
    assert_null(coll_row_find(&v, "slabs", "class 4 (400 B)"));
    assert_string_equal(row(&v, "slabs", "other classes")->value, "4 classes, 40 items, 1.0 MB");
}

static void
test_derive_first_sample(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    memcached_collector_class.derive(NULL, &b, 0, &v);
    assert_string_equal(row(&v, "commands", "get/s")->value, "-");
    assert_true(isnan(row(&v, "commands", "get/s")->num));
    assert_string_equal(row(&v, "commands", "hit %")->value, "-");
    assert_string_equal(row(&v, "cpu", "user+sys")->value, "-");
    assert_true(isnan(v.server_tps));
    /* gauges are there at once */
    assert_true(row(&v, "memory", "items")->num == 700.0);
    assert_true(row(&v, "connections", "current")->num == 12.0);
    assert_int_equal(v.nevents, 0);
}

static void
test_derive_restart(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    set(&b, MCS_PID, 78);
    set(&b, MCS_UPTIME, 1);
    set(&b, MCS_CMD_GET, 10); /* counters start again: never a negative rate */
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_string_equal(v.events[0], "memcached restarted (up 1 s)");
    assert_string_equal(row(&v, "commands", "get/s")->value, "-");
    assert_true(isnan(v.server_tps));
}

/* A counter that went down without a restart (a reset) gives "-", not a huge number. */
static void
test_derive_counter_reset(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    set(&b, MCS_CMD_SET, 50);
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_string_equal(row(&v, "commands", "set/s")->value, "-");
    assert_true(row(&v, "commands", "get/s")->num == 1000.0);
}

/* memcached 1.4 lacks some counters: shown as n/a, dimmed, with a note. */
static void
test_derive_14(void **state)
{
    (void)state;
    struct mc_sample *s = calloc(1, sizeof *s);
    struct coll_view v;
    char err[BT_ERRLEN];

    assert_int_equal(mc_stats_parse(mc14_stats, strlen(mc14_stats), &s->st, err), 0);
    assert_int_equal(mc_slabs_parse(mc14_slabs, strlen(mc14_slabs), &s->slabs, err), 0);
    assert_int_equal(mc_items_parse(mc14_items, strlen(mc14_items), &s->slabs, err), 0);
    s->have_slabs = 1;
    memcached_collector_class.derive(NULL, s, 0, &v);
    assert_string_equal(row(&v, "connections", "current")->value, "10");
    assert_string_equal(row(&v, "connections", "rejected/s")->value, "n/a");
    assert_int_equal(row(&v, "connections", "rejected/s")->level, ROW_DIM);
    assert_string_equal(row(&v, "memory", "bytes")->value, "4.8 of 64.0 MB (7%)");
    assert_string_equal(v.note, "memcached 1.4.5 lacks some counters (shown n/a)");
    free(s);
}

/* Slab stats that failed to parse: the rest is shown, the slab row says n/a, the note says why. */
static void
test_derive_no_slabs(void **state)
{
    (void)state;
    struct mc_sample a, b;
    struct coll_view v;

    hand_made(&a, &b);
    b.have_slabs = 0;
    snprintf(b.slab_err, sizeof b.slab_err, "stats reply cut short after 3 lines (no END)");
    memcached_collector_class.derive(&a, &b, 2.0, &v);
    assert_string_equal(row(&v, "slabs", "classes")->value, "n/a");
    assert_string_equal(v.note, "slab stats unavailable: stats reply cut short after 3 lines (no "
                                "END)");
    assert_true(row(&v, "commands", "get/s")->num == 1000.0);
}

/* lru_crawler metadump lines as 1.6.18 writes them: the key decoded, the fields read. */
static void
test_meta_parse(void **state)
{
    const char *ok = "key=sess%2520x%3A1 exp=-1 la=1796194467 cas=2 fetch=yes cls=1 size=70";
    const char *ttl = "key=user%3A1 exp=1796195067 la=1796194467 cas=1 fetch=no cls=3 size=170";
    struct mc_meta m;

    assert_int_equal(mc_meta_parse(ok, strlen(ok), &m), 0);
    assert_string_equal(m.key, "sess%20x:1");
    assert_int_equal(m.key_len, 10);
    assert_int_equal(m.exp, -1);
    assert_int_equal(m.fetched, 1);
    assert_int_equal(m.size, 70);
    assert_int_equal(mc_meta_parse(ttl, strlen(ttl), &m), 0);
    assert_int_equal(m.exp, 1796195067);
    assert_int_equal(m.la, 1796194467);
    assert_int_equal(m.fetched, 0);
    assert_int_equal(m.cls, 3);
    assert_int_equal(mc_meta_parse("END", 3, &m), -1);
    assert_int_equal(mc_meta_parse("BUSY currently processing crawler request", 41, &m), -1);
    assert_int_equal(mc_meta_parse("key=a%4 exp=-1 size=1", 21, &m), -1); /* cut escape */
    assert_int_equal(mc_meta_parse("key=a exp=-1", 12, &m), -1);          /* no size */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_16),
        cmocka_unit_test(test_meta_parse),
        cmocka_unit_test(test_slabs_items_16),
        cmocka_unit_test(test_settings_find),
        cmocka_unit_test(test_stats_14),
        cmocka_unit_test(test_rusage_dot_fraction),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_derive_rates),
        cmocka_unit_test(test_derive_slabs),
        cmocka_unit_test(test_derive_many_classes),
        cmocka_unit_test(test_derive_first_sample),
        cmocka_unit_test(test_derive_restart),
        cmocka_unit_test(test_derive_counter_reset),
        cmocka_unit_test(test_derive_14),
        cmocka_unit_test(test_derive_no_slabs),
        cmocka_unit_test(test_derive_signals),
    };
    return cmocka_run_group_tests_name("memcached_stats", tests, NULL, NULL);
}
