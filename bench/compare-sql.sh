#!/usr/bin/env bash
# bench/compare-sql.sh DATABASE A.sql B.sql [ROUNDS]
#
# Two statements timed against each other on DATABASE, interleaved (A, B, A, B, ... ROUNDS times each, default 12, in
# one psql session), so the host's speed swings hit both alike; prints each one's median and fastest client-side time
# (psql's \timing: the statement, its result, the round trip). Each file holds one statement, parameters written as
# literals (bench:plans prints them). PGHOST, PGUSER as for psql (default 127.0.0.1, postgres).
set -euo pipefail
DB=${1:?database}
A=${2:?first statement file}
B=${3:?second statement file}
N=${4:-12}
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
a=$(tr '\n' ' ' <"$A")
b=$(tr '\n' ' ' <"$B")
{
  echo '\timing on'
  for _ in $(seq 1 "$N"); do
    echo "$a"
    echo "$b"
  done
} | psql -X -q -d "$DB" 2>&1 | grep -E '^(Time|ERROR)' | awk -v A="$A" -v B="$B" '
  /^ERROR/ { print; exit 1 }
  { if (NR % 2) a[++na] = $2; else b[++nb] = $2 }
  END {
    asort(a); asort(b)
    printf "%s: median %.1f ms, fastest %.1f ms (%d runs)\n", A, a[int(na / 2) + 1], a[1], na
    printf "%s: median %.1f ms, fastest %.1f ms (%d runs)\n", B, b[int(nb / 2) + 1], b[1], nb
  }'
