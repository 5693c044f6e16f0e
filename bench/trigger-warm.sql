-- A service connection's trigger plans after single-item updates, then an UPDATE of 3,000 items on the same
-- connection (docs/work-items-plans.md, Done 25). Every statement is rolled back. On a benchmark seed:
--   npm run bench -- --items 100000 --seed-only --database wt_bench
--   psql -h 127.0.0.1 -U postgres -d wt_bench -f bench/trigger-warm.sql
\timing on
SELECT id AS pid FROM projects WHERE identifier = 'BENCH' \gset
BEGIN; UPDATE work_items SET priority = 'low' WHERE project_id = :'pid' AND sequence_id = 1; ROLLBACK;
BEGIN; UPDATE work_items SET priority = 'low' WHERE project_id = :'pid' AND sequence_id = 2; ROLLBACK;
BEGIN; UPDATE work_items SET target_date = date '2026-01-01' WHERE project_id = :'pid' AND sequence_id = 3; ROLLBACK;
BEGIN; UPDATE work_items SET target_date = date '2026-01-02' WHERE project_id = :'pid' AND sequence_id <= 3000; ROLLBACK;
BEGIN; UPDATE work_items SET target_date = date '2026-01-03' WHERE project_id = :'pid' AND sequence_id <= 3000; ROLLBACK;
