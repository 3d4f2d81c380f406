#!/bin/sh
# Runs one fuzz target for SECONDS (default 3600) with the flags the issue asks
# for: a 10 s timeout per input, 2 GB of memory, one worker; new inputs go to
# fuzz/work/TARGET, crashes to fuzz/artifacts/TARGET. Usage, from anywhere:
#   fuzz/run.sh TARGET [SECONDS] [more libFuzzer flags...]
set -eu
target=$1
seconds=${2:-3600}
shift
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.."
case $target in
    kineto_reader|compressed_source|args_reread) dict=kineto ;;
    *) dict=$target ;;
esac
mkdir -p "fuzz/work/$target"
# The file-reading targets write one file per input under TMPDIR: a tmpfs.
export TMPDIR="${TMPDIR:-/dev/shm}"
exec cargo +nightly fuzz run -O -a -s none "$target" \
    "fuzz/work/$target" "fuzz/corpus/$target" -- \
    "-dict=fuzz/dicts/$dict.dict" -timeout=10 -rss_limit_mb=2048 \
    "-max_total_time=$seconds" -print_final_stats=1 "$@"
