import { WORK_ITEM_READER_ROLES } from '../common/auth/roles';

/**
 * SQL fragments of work items that other features' statements embed (an exported, named query module: other
 * features never import work-items.repository). Arguments are SQL references, never values.
 */

/**
 * SQL: the project `projectCol` is one whose work items the viewer can read (Viewer: `userRef` binds the user id,
 * `allRef` the all-projects flag): a member of it with WORK_ITEM_READER or above, or a workspace owner/admin.
 */
export const READABLE_PROJECT = (projectCol: string, userRef: string, allRef: string) =>
  `(${allRef}::boolean OR EXISTS (SELECT 1 FROM project_members rp WHERE rp.project_id = ${projectCol} AND rp.member_id = ${userRef}::uuid AND rp.deleted_at IS NULL
      AND rp.role IN (${WORK_ITEM_READER_ROLES.map((r) => `'${r}'`).join(', ')})))`;

/**
 * A work item is live while neither it nor its project is deleted (deleting a project leaves its rows alone).
 * The project row is locked too: a project delete takes it FOR UPDATE first, so a write that links a parent
 * of that project either commits before the delete detaches children or sees the project gone.
 */
export const LIVE_PROJECT_OF = (w: string) =>
  `EXISTS (SELECT 1 FROM projects lp WHERE lp.id = ${w}.project_id AND lp.deleted_at IS NULL)`;
