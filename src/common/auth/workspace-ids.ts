/** More slugs than this in use and the map starts over (each costs one lookup to learn again). */
const MAX_SLUGS = 10_000;

/**
 * Workspace slug -> id, learned from the database and kept for the process's life, so the credential lookup can
 * name the workspace by id (`workspace_id = $n`, a statement a distributed PostgreSQL routes to one shard: it
 * cannot route one whose workspace is found by a sub-select on the slug). Never trusted alone: the lookup checks
 * the id still has the slug and is live, and a miss there forgets the entry (AuthRepository), so a deleted
 * workspace whose slug is taken again is learned anew. Slugs are never renamed; unknown slugs are not kept.
 */
export class WorkspaceIds {
  private readonly ids = new Map<string, string>();

  get(slug: string): string | undefined {
    return this.ids.get(slug);
  }

  set(slug: string, id: string): void {
    if (this.ids.size >= MAX_SLUGS) this.ids.clear();
    this.ids.set(slug, id);
  }

  forget(slug: string): void {
    this.ids.delete(slug);
  }

  get size(): number {
    return this.ids.size;
  }
}
