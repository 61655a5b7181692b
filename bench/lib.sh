# bench/lib.sh: what the bench/vs-* scripts share (sourced, not run).
#
# Client CPU per transaction is the first figure: on a shared machine the
# throughput of either tool swings with whatever else runs, but the CPU a
# client spends on one request hardly does. Each run's CPU is its user + sys
# time as the shell's wait4() reports it (getrusage of the child, threads
# included). A case runs PAIRS alternating pairs, odd pairs A first, even
# pairs B first, so that drift hits both; the table gives medians.
#
# A script sets a_name, b_name and pairs and defines a_run and b_run: each
# takes the case's arguments and prints "TPS COUNT CPU_S" (count: the
# transactions or requests the CPU paid for). Then run_case per case, then
# print_results.

# cpu_run OUT CMD...: runs CMD, its stdout to OUT (stderr dropped); prints its CPU seconds.
cpu_run() {
    local out=$1 t
    shift
    t=$({
        TIMEFORMAT='%3U %3S'
        time "$@" >"$out" 2>/dev/null
    } 2>&1) || true
    awk -v t="$t" 'BEGIN { n = split(t, a, " "); print (n >= 2 ? a[n - 1] + a[n] : 0) }'
}

# The benchtop summary's tps and transactions from a file of JSON lines.
bt_summary() {
    sed -n 's/.*"type":"summary".*"transactions":\([0-9]*\),.*"tps":\([0-9.]*\).*/\2 \1/p' "$1"
}

load_avg() { cut -d' ' -f1 /proc/loadavg; }

median_of() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

bench_results=$(mktemp) # removed by print_results

# run_case NAME A_ARGS B_ARGS
run_case() {
    local name=$1 aargs=$2 bargs=$3 i res_a res_b rows=""
    for ((i = 1; i <= pairs; i++)); do
        # shellcheck disable=SC2086
        if ((i % 2)); then
            res_a=$(a_run $aargs)
            res_b=$(b_run $bargs)
        else
            res_b=$(b_run $bargs)
            res_a=$(a_run $aargs)
        fi
        rows+="$res_a $res_b"$'\n'
        echo "$res_a $res_b" | awk -v n="$name" -v i="$i" -v A="$a_name" -v B="$b_name" -v l="$(load_avg)" \
            '{ printf "  %-40s pair %d: %s %10.1f/s %6.2f us/txn  %s %10.1f/s %6.2f us/txn  load %s\n",
               n, i, A, $1, $2 ? $3 * 1e6 / $2 : 0, B, $4, $5 ? $6 * 1e6 / $5 : 0, l }'
    done
    {
        printf '%s\t' "$name"
        printf '%s' "$rows" | awk '{ print $1 }' | median_of | tr '\n' '\t'
        printf '%s' "$rows" | awk '{ print $4 }' | median_of | tr '\n' '\t'
        printf '%s' "$rows" | awk '{ print ($4 > 0 ? $1 / $4 : 0) }' | median_of | tr '\n' '\t'
        printf '%s' "$rows" | awk '{ print ($2 ? $3 * 1e6 / $2 : 0) }' | median_of | tr '\n' '\t'
        printf '%s' "$rows" | awk '{ print ($5 ? $6 * 1e6 / $5 : 0) }' | median_of | tr '\n' '\t'
        printf '%s' "$rows" | awk '{ a = $2 ? $3 / $2 : 0; b = $5 ? $6 / $5 : 0; print (b > 0 ? a / b : 0) }' |
            median_of
    } >>"$bench_results"
}

print_results() {
    echo
    echo "medians of $pairs alternating pairs; ratios are medians of the per-pair ratios $a_name/$b_name;"
    echo "client CPU = user + sys of the whole process per transaction; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
    awk -F'\t' -v A="$a_name" -v B="$b_name" '
        BEGIN { printf "| %-40s | %18s | %18s | %6s | %18s | %18s | %9s |\n", "case", A " /s", B " /s",
                       "ratio", A " us/txn", B " us/txn", "cpu ratio"
                printf "|%s|%s|%s|%s|%s|%s|%s|\n", "------------------------------------------",
                       "--------------------", "--------------------", "--------",
                       "--------------------", "--------------------", "-----------" }
        { printf "| %-40s | %18.1f | %18.1f | %6.3f | %18.2f | %18.2f | %9.3f |\n",
          $1, $2, $3, $4, $5, $6, $7 }' "$bench_results"
    rm -f "$bench_results"
}
