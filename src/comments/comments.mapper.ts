import { actorRef } from '../users/user-ref';
import { CommentDto } from './comments.dto';

export const COMMENT_EXPANDS = ['actor'] as const;
import { CommentRow } from './comments.repository';

export function mapComment(r: CommentRow, expand: Set<string> = new Set()): CommentDto {
  const dto: CommentDto = {
    id: r.id,
    work_item_id: r.work_item_id,
    comment_html: r.comment_html,
    comment_stripped: r.comment_stripped,
    access: r.access,
    actor_id: r.actor_id,
    edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null,
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
  if (expand.has('actor')) dto.actor = actorRef(r);
  return dto;
}
