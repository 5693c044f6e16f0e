import { ApiProperty } from '@nestjs/swagger';

/** A user as an expansion shows it (`?expand=actor`): the shape gap-reference gives every expanded user. */
export class UserRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty({ type: String, nullable: true }) avatar_url!: string | null;
  @ApiProperty({ format: 'email' }) email!: string;
}

/** The actor columns a repository reads beside its row for `?expand=actor` (a LEFT JOIN of users). */
export interface ActorColumns {
  actor_id: string | null;
  actor_display_name?: string | null;
  actor_email?: string | null;
  actor_avatar_url?: string | null;
}

/** The expanded actor: null when no user made the change (a system job) or the user no longer exists. */
export function actorRef(r: ActorColumns): UserRefDto | null {
  if (!r.actor_id || r.actor_display_name == null) return null;
  return {
    id: r.actor_id,
    display_name: r.actor_display_name,
    avatar_url: r.actor_avatar_url ?? null,
    email: r.actor_email ?? '',
  };
}
