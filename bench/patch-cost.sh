#!/usr/bin/env bash
# bench/patch-cost.sh DATABASE [UPDATES] [--checkpoint]
#
# Where a benchmark PATCH's statement time goes (name and priority of one random item of the largest project, as
# bench/scenarios.js's patch row sends them; docs/work-items-plans.md, "What a PATCH costs at a million items"), on a
# database `node bench/run.js --items N --seed-only --database DATABASE` seeded (psql on PATH; PGHOST, PGUSER as for
# psql, default 127.0.0.1 postgres). Each UPDATE runs under EXPLAIN (ANALYZE, BUFFERS, WAL) in a transaction rolled
# back, all in one session (warm plans), on UPDATES items (default 200) drawn at random; `--checkpoint` takes a
# CHECKPOINT first. Prints the means per update: the update node's time (the item row and its indexes), each AFTER
# trigger's time (the link sync rewrites the item's assignee and label rows when the priority changes), the whole
# execution, and the update node's buffers and WAL (the triggers' own are not in EXPLAIN's node counts); then, for the
# whole statement with its triggers, the database's blocks read and hit per update (pg_stat_database around the
# updates' session; nothing else may use DATABASE meanwhile): counts that, unlike times, do not depend on the load.
set -euo pipefail
DB=${1:?database}
N=${2:-200}
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
q() { psql -X -q -At -d "$DB" -c "$1"; }
[ "${3:-}" = --checkpoint ] && q 'CHECKPOINT'
PROJECT=$(q "SELECT project_id FROM work_items WHERE deleted_at IS NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
IDS=$(q "SELECT workspace_id || ' ' || id FROM work_items WHERE project_id = '$PROJECT' AND deleted_at IS NULL
   AND archived_at IS NULL ORDER BY random() LIMIT $N")
# pg_stat_database takes a backend's counts when its session ends (or at most once a second): wait for them.
STATS="SELECT blks_read || ' ' || blks_hit FROM pg_stat_database WHERE datname = current_database()"
sleep 1.5
read -r READ0 HIT0 <<<"$(q "$STATS")"
echo "$IDS" |
  while read -r ws id; do
    echo "BEGIN; EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) UPDATE work_items SET name = 'Patched ' || clock_timestamp(),
      priority = CASE WHEN priority = 'high' THEN 'low' ELSE 'high' END, updated_at = now()
      WHERE workspace_id = '$ws' AND id = '$id'; ROLLBACK;"
  done | psql -X -q -d "$DB" | awk '
    /^ *Update on/ { node = 1; match($0, /actual time=[0-9.]+\.\.[0-9.]+/); t = substr($0, RSTART, RLENGTH); sub(/.*\.\./, "", t); up += t }
    node && /Buffers:/ { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == "hit") h += a[2]; if (a[1] == "read") rd += a[2]; if (a[1] == "dirtied") dt += a[2] } }
    node && /WAL:/ { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == "fpi") fp += a[2]; if (a[1] == "bytes") by += a[2] }; node = 0 }
    /^ *Trigger / { name = $2; sub(/:$/, "", name); match($0, /time=[0-9.]+/); trig[name] += substr($0, RSTART + 5, RLENGTH - 5) }
    /Execution Time/ { ex += $3; n++ }
    END {
      printf "%d updates; per update: update node %.3f ms (buffers hit %.1f, read %.1f, dirtied %.1f; WAL %.1f full-page images, %.0f bytes)\n", n, up / n, h / n, rd / n, dt / n, fp / n, by / n
      for (k in trig) printf "  trigger %s %.3f ms\n", k, trig[k] / n
      printf "  execution %.3f ms\n", ex / n
    }'
sleep 1.5
read -r READ1 HIT1 <<<"$(q "$STATS")"
# Less the two statistics reads' own (a few blocks, hit).
q "SELECT format('  whole statement with its triggers, per update: blocks read %s, hit %s',
    round(($READ1 - $READ0)::numeric / $N, 1), round(($HIT1 - $HIT0)::numeric / $N, 1))"
