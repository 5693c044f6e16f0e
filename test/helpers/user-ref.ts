import type { TestApp } from './test-app';

/** What `?expand=actor` / `member` / `assignees` should show for a user, read from the database. */
export async function expectedUserRef(t: TestApp, user: { id: string; email: string }) {
  const [row] = await t.ds.query('SELECT display_name, avatar_url FROM users WHERE id = $1', [user.id]);
  return { id: user.id, display_name: row.display_name, avatar_url: row.avatar_url, email: user.email };
}
