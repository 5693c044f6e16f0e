-- Plans of the link, relation and history statements on a large table (docs/work-item-links-relations-history.md,
-- "Plans"). On an empty, migrated database:
--   createdb wt_plans && DATABASE_URL=postgres://…/wt_plans npm run --silent cli -- migrate
--   psql wt_plans -f bench/history-plans.sql
-- Seeds 10,000 work items (plus 990,000 more), 1,000,000 history entries, 1,000,000 links and 1,000,000 relations
-- (whose triggers add 3,000,000 more entries), then prints each plan.
\timing on
INSERT INTO projects (id, workspace_id, name, identifier) VALUES ('22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111', 'Plans', 'PLAN');
INSERT INTO states (id, workspace_id, project_id, name, color, sequence, "group") VALUES ('55555555-5555-4555-8555-555555555555', '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', 'Todo', '#000000', 1, 'unstarted');
CREATE TEMP TABLE ids AS SELECT g, gen_random_uuid() AS id FROM generate_series(1, 10000) g;
ANALYZE ids;
INSERT INTO work_items (id, workspace_id, project_id, sequence_id, name, state_id)
SELECT id, '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', g, 'Item', '55555555-5555-4555-8555-555555555555' FROM ids;
INSERT INTO work_items (workspace_id, project_id, sequence_id, name, state_id)
SELECT '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', 100000 + g, 'Filler', '55555555-5555-4555-8555-555555555555'
  FROM generate_series(1, 990000) g;
INSERT INTO work_item_activities (id, workspace_id, project_id, work_item_id, verb, field, old_value, new_value, actor_id, epoch, xact_id, created_at)
SELECT wt_uuid_v7(now() - make_interval(secs => 1000000 - (i.g * 100 + n))), -- an entry's id is of its created_at
       '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', i.id,
       (ARRAY['updated','updated','updated','created','archived'])[1 + n % 5],
       (ARRAY['name','priority','state','assignees','labels','comment','link'])[1 + n % 7],
       'old ' || n, 'new ' || n,
       (ARRAY['33333333-3333-4333-8333-333333333331','33333333-3333-4333-8333-333333333332','33333333-3333-4333-8333-333333333333']::uuid[])[1 + n % 3],
       n, n, now() - make_interval(secs => 1000000 - (i.g * 100 + n))
  FROM ids i, generate_series(1, 100) n;
-- 1,000,000 links: 100 per work item.
INSERT INTO work_item_links (workspace_id, project_id, work_item_id, url, title, created_at)
SELECT '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', i.id,
       'https://example.com/' || i.g || '/' || n, 'Doc ' || n, now() - make_interval(secs => 1000000 - (i.g * 100 + n))
  FROM ids i, generate_series(1, 100) n;
INSERT INTO work_item_relations (workspace_id, kind, definition_id, dependency_type, source_id, target_id, source_project_id, target_project_id)
SELECT '11111111-1111-4111-8111-111111111111', CASE WHEN x.n % 4 = 0 THEN 'dependency' ELSE 'relation' END,
       CASE WHEN x.n % 4 = 0 THEN NULL ELSE '44444444-4444-4444-8444-444444444444'::uuid END,
       CASE WHEN x.n % 4 = 0 THEN 'blocking' END,
       a.id, b.id, '22222222-2222-4222-8222-222222222222', '22222222-2222-4222-8222-222222222222'
  FROM (SELECT a.g AS ag, n, 1 + (a.g + n * 37) % 10000 AS bg FROM ids a, generate_series(1, 100) n) x
  JOIN ids a ON a.g = x.ag JOIN ids b ON b.g = x.bg
 WHERE x.ag <> x.bg;
VACUUM ANALYZE work_items;
VACUUM ANALYZE work_item_activities;
VACUUM ANALYZE work_item_links;
VACUUM ANALYZE work_item_relations;
\timing off
SELECT source_id AS wi FROM work_item_relations LIMIT 1 \gset
\echo '== counts'
SELECT (SELECT count(*) FROM work_item_activities) AS activities, (SELECT count(*) FROM work_item_links) AS links, (SELECT count(*) FROM work_item_relations) AS relations, (SELECT count(*) FROM work_item_activities WHERE workspace_id = '11111111-1111-4111-8111-111111111111' AND work_item_id = :'wi') AS this_item_entries;
\set ws '''11111111-1111-4111-8111-111111111111'''
\set pr '''22222222-2222-4222-8222-222222222222'''
\set C 'a.id, a.work_item_id, a.verb, a.field, a.old_value, a.new_value, a.old_identifier_id, a.new_identifier_id, a.issue_comment_id, a.actor_id, a.epoch, a.created_at'
\set W 'a.work_item_id = :''wi'' AND a.workspace_id = ' :ws ' AND a.project_id = ' :pr
\echo '== activities: page 1, oldest first'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT :C FROM work_item_activities a WHERE a.work_item_id = :'wi' AND a.workspace_id = :ws AND a.project_id = :pr ORDER BY a.created_at, a.id LIMIT 51;
\echo '== activities: newest first, cursor page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT :C FROM work_item_activities a WHERE a.work_item_id = :'wi' AND a.workspace_id = :ws AND a.project_id = :pr AND (a.created_at, a.id) < (now(), 'ffffffff-ffff-4fff-bfff-ffffffffffff'::uuid) ORDER BY a.created_at DESC, a.id DESC LIMIT 51;
\echo '== activities: order_by=id'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT :C FROM work_item_activities a WHERE a.work_item_id = :'wi' AND a.workspace_id = :ws AND a.project_id = :pr ORDER BY a.created_at, a.id LIMIT 51; -- order_by=id: the same rows (ids are of created_at)
\echo '== activities: field + verb + actor + created_at range + search'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT :C FROM work_item_activities a WHERE a.work_item_id = :'wi' AND a.workspace_id = :ws AND a.project_id = :pr AND a.field = ANY('{name,priority}') AND a.verb = 'updated' AND a.actor_id = '33333333-3333-4333-8333-333333333331' AND a.created_at >= now() - interval '30 days' AND a.created_at <= now() AND (a.field ILIKE '%new 1%' OR a.old_value ILIKE '%new 1%' OR a.new_value ILIKE '%new 1%') ORDER BY a.created_at, a.id LIMIT 51;
\echo '== activities: total_count'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT count(*) FROM work_item_activities a WHERE a.work_item_id = :'wi' AND a.workspace_id = :ws AND a.project_id = :pr;
\echo '== activity by id'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT :C FROM work_item_activities a WHERE a.workspace_id = :ws AND a.id = (SELECT id FROM work_item_activities WHERE workspace_id = :ws AND work_item_id = :'wi' ORDER BY created_at DESC LIMIT 1) AND a.project_id = :pr AND a.work_item_id = :'wi';
\echo '== links: page 1 with ?search='
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT l.id, l.url, l.title FROM work_item_links l WHERE l.work_item_id = :'wi' AND l.workspace_id = :ws AND l.project_id = :pr AND l.deleted_at IS NULL AND (l.title ILIKE '%doc 3%' OR l.url ILIKE '%doc 3%') ORDER BY l.created_at, l.id LIMIT 51;
\echo '== links: ?url= (exact)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT l.id FROM work_item_links l WHERE l.work_item_id = :'wi' AND l.workspace_id = :ws AND l.project_id = :pr AND l.deleted_at IS NULL AND l.url = 'https://example.com/1/1' ORDER BY l.created_at DESC, l.id DESC LIMIT 51;
\echo '== relations of one work item (WorkItemRelationsRepository.ends, a workspace admin)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT e.key, e.outward, o.id AS other_id
  FROM (SELECT COALESCE(r.definition_id::text, r.dependency_type) AS key, true AS outward, r.target_id AS other_id FROM work_item_relations r
         WHERE r.source_id = :'wi' AND r.kind = 'relation' AND r.workspace_id = '11111111-1111-4111-8111-111111111111'
        UNION ALL
        SELECT COALESCE(r.definition_id::text, r.dependency_type), false, r.source_id FROM work_item_relations r
         WHERE r.target_id = :'wi' AND r.kind = 'relation' AND r.workspace_id = '11111111-1111-4111-8111-111111111111') e
  JOIN work_items o ON o.id = e.other_id AND o.workspace_id = '11111111-1111-4111-8111-111111111111'
 WHERE o.deleted_at IS NULL AND EXISTS (SELECT 1 FROM projects vp WHERE vp.id = o.project_id AND vp.deleted_at IS NULL)
 ORDER BY o.id;
\echo '== reverse-direction check after an insert (uq_work_item_relations_pair)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT x.t AS other FROM unnest(ARRAY[:'wi']::uuid[], ARRAY(SELECT target_id FROM work_item_relations WHERE source_id = :'wi' LIMIT 3)) AS x(s, t)
  JOIN work_item_relations r ON r.workspace_id = '11111111-1111-4111-8111-111111111111' AND r.kind = 'relation' AND COALESCE(r.definition_id::text, r.dependency_type) = '44444444-4444-4444-8444-444444444444'
   AND LEAST(r.source_id, r.target_id) = LEAST(x.s, x.t) AND GREATEST(r.source_id, r.target_id) = GREATEST(x.s, x.t) AND r.source_id = x.t;
