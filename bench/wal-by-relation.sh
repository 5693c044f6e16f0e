#!/usr/bin/env bash
# bench/wal-by-relation.sh DATABASE ITEMS ROWS [more bench/run.js options]
#
# Which tables and indexes a benchmark row's writes change, and how many of those changes were the first since a
# checkpoint (a full-page image, 8 kB each): the WAL of the row's measured rounds, summed per relation and record
# kind with pg_walinspect (PostgreSQL 15's contrib; superuser). Runs `node bench/run.js --items ITEMS --rows ROWS
# --database DATABASE --reuse --audit-entries 0` on a seeded DATABASE, takes the server's WAL insert position when
# the run's first round starts (after every warm-up) and when it ends, and prints the top relations of that range.
# The whole server's WAL is read, so nothing else may write meanwhile. A full-page image is a page written for the
# first time since a checkpoint: a write that lands on pages nobody touched lately (a large table's random leaves)
# shows there as images, one that keeps landing on the same pages (an index's right edge) as small records.
# Reading the range needs its WAL segments still on disk: if the server removed them after a checkpoint ("requested
# WAL segment ... has already been removed"), raise wal_keep_size for the measurement (docs/work-items-plans.md,
# What to change next 7, used 8GB) and run again.
set -euo pipefail
DB=${1:?database}
ITEMS=${2:?items}
ROWS=${3:?rows, e.g. patch or create}
shift 3
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
URL=${BENCH_DATABASE_URL:-postgres://$PGUSER@$PGHOST:5432/postgres}
LOG=$(mktemp)
q() { psql -X -q -At -d "$1" -c "$2"; }
q postgres 'CREATE EXTENSION IF NOT EXISTS pg_walinspect'

BENCH_DATABASE_URL=$URL node bench/run.js --items "$ITEMS" --rows "$ROWS" --database "$DB" --reuse \
  --audit-entries 0 "$@" >"$LOG" 2>&1 &
RUN=$!
until grep -q 'round 1/' "$LOG"; do
  kill -0 "$RUN" 2>/dev/null || { cat "$LOG"; exit 1; }
  sleep 0.5
done
START=$(q postgres 'SELECT pg_current_wal_insert_lsn()')
wait "$RUN"
END=$(q postgres 'SELECT pg_current_wal_insert_lsn()')
sed -n '/^| scenario/,/^WAL per/p' "$LOG"
echo "WAL of the measured rounds: $START .. $END"

# Each record's first block reference names the relation's file (tablespace/database/relfilenode).
psql -X -q -At -F'|' -d postgres -c "
  SELECT (regexp_match(block_ref, 'rel [0-9]+/[0-9]+/([0-9]+)'))[1], resource_manager, count(*),
         count(*) FILTER (WHERE fpi_length > 0), sum(fpi_length), sum(record_length)
    FROM pg_get_wal_records_info('$START', '$END') GROUP BY 1, 2 ORDER BY 6 DESC LIMIT ${TOP:-30}" >"$LOG.wal"
q postgres "SELECT 'all relations: ' || count(*) || ' records, ' || count(*) FILTER (WHERE fpi_length > 0)
  || ' with a full-page image; ' || pg_size_pretty(sum(fpi_length)) || ' of images in '
  || pg_size_pretty(sum(record_length)) || ' of WAL' FROM pg_get_wal_records_info('$START', '$END')"
psql -X -q -At -F'|' -d "$DB" -c 'SELECT relfilenode, relname FROM pg_class WHERE relfilenode <> 0' >"$LOG.rel"
awk -F'|' '
  NR == FNR { name[$1] = $2; next }
  FNR == 1 { printf "%-40s %-8s %9s %9s %12s %12s\n", "relation", "kind", "records", "images", "image bytes", "all bytes" }
  { printf "%-40s %-8s %9d %9d %12d %12d\n", ($1 in name ? name[$1] : ($1 == "" ? "(none)" : $1)), $2, $3, $4, $5, $6 }
' "$LOG.rel" "$LOG.wal"
rm -f "$LOG" "$LOG.wal" "$LOG.rel"
