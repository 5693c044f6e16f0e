#!/usr/bin/env bash
# bench/insert-ids.sh DATABASE [INSERTS] [ROUNDS]
#
# What a work item insert costs with random (version 4) ids against time-ordered (version 7) ids (migration
# WorkItemTimeOrderedIds, docs/work-items-plans.md "Time-ordered work item ids"), on a database that
# `node bench/run.js --items N --seed-only --database DATABASE` seeded (BENCH_DATABASE_URL's server, psql on PATH;
# PGHOST, PGPORT, PGUSER as for psql, default 127.0.0.1:5432 postgres). Per round and id kind: the column's default
# is set, a CHECKPOINT is taken (so both start with no page logged since), then INSERTS single-row inserts of the
# benchmark's create (name only, into the largest project), each under EXPLAIN (ANALYZE, BUFFERS, WAL) in one
# session; it prints the per-insert means of the insert node's WAL records, full-page images and bytes, its
# buffers read and dirtied, the execution time and each trigger's time. The inserted items stay (a few hundred per round). The default
# is left as the migration sets it. WAL here is the statement's own (EXPLAIN's), not the server's, so other
# databases' writes do not count; the times do depend on the machine's load.
set -euo pipefail
DB=${1:?database}
N=${2:-300}
ROUNDS=${3:-2}
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
q() { psql -X -q -At -d "$DB" -c "$1"; }
read -r WS PROJECT STATE < <(q "SELECT workspace_id, project_id, state_id FROM work_items WHERE deleted_at IS NULL
  GROUP BY 1, 2, 3 ORDER BY count(*) DESC LIMIT 1" | tr '|' ' ')
INSERT="INSERT INTO work_items (workspace_id, project_id, name, state_id, sort_order)
  VALUES ('$WS', '$PROJECT', 'Created by bench/insert-ids.sh', '$STATE', 65535)"
OUT=$(mktemp)
trap 'rm -f "$OUT"; q "ALTER TABLE work_items ALTER COLUMN id SET DEFAULT wt_uuid_v7_strong(now())" >/dev/null' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for kind in v4 v7; do
    if [ "$kind" = v4 ]; then d='gen_random_uuid()'; else d='wt_uuid_v7_strong(now())'; fi
    q "ALTER TABLE work_items ALTER COLUMN id SET DEFAULT $d"
    q 'CHECKPOINT'
    for _ in $(seq 1 "$N"); do echo "EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) $INSERT;"; done |
      psql -X -q -d "$DB" >"$OUT"
    awk -v label="round $round $kind" '
      /^ *Insert on/ { node = 1; next }
      node && /Buffers:/ { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == "read") rd += a[2]; if (a[1] == "dirtied") dt += a[2] } }
      node && /WAL:/ { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == "records") rc += a[2]; if (a[1] == "fpi") fp += a[2]; if (a[1] == "bytes") by += a[2] } }
      /->|Planning/ { node = 0 }
      /^ *Trigger / { name = $2; sub(/:$/, "", name); match($0, /time=[0-9.]+/); trig[name] += substr($0, RSTART + 5, RLENGTH - 5) }
      /Execution Time/ { ex += $3; n++ }
      END {
        printf "%s: %d inserts; per insert: WAL records %.1f, full-page images %.2f, WAL bytes %.0f, buffers read %.2f, dirtied %.2f; execution %.3f ms\n", label, n, rc / n, fp / n, by / n, rd / n, dt / n, ex / n
        for (k in trig) printf "  trigger %s %.3f ms\n", k, trig[k] / n
      }
    ' "$OUT"
  done
done
