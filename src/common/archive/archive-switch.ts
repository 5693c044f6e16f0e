import { ProjectContext } from '../auth/request-context';
import { ErrorCode } from '../errors/error-codes';
import { ProblemException } from '../errors/problem.exception';

/*
 * What the cycle and module archives (issue 20) share: how a record moves between live and archived, and the
 * refusal of a write to an archived one. Each feature brings its own SQL and its own "may it be archived" rule
 * (a cycle that has ended, a module completed or cancelled) behind this port.
 */

export type ArchivableKind = 'cycle' | 'module';

/** The stored columns the switch reads. */
export interface ArchivableRow {
  id: string;
  name: string;
  archived_at: Date | string | null;
}

const ARCHIVED_CODE: Record<ArchivableKind, ErrorCode> = {
  cycle: ErrorCode.CycleArchived,
  module: ErrorCode.ModuleArchived,
};

/** A write to an archived record is 409 `<kind>_archived` (it must be unarchived first). */
export function assertNotArchived(kind: ArchivableKind, row: ArchivableRow): void {
  if (!row.archived_at) return;
  throw new ProblemException(
    ARCHIVED_CODE[kind],
    `The ${kind} "${row.name}" is archived: unarchive it first (POST .../${kind}s/{pk}/unarchive/).`,
  );
}

/** The archive rule of a kind refused this record: 409 `not_archivable` with the rule in words. */
export function notArchivable(detail: string): ProblemException {
  return new ProblemException(ErrorCode.NotArchivable, detail);
}

export interface ArchiveSwitch<R extends ArchivableRow> {
  kind: ArchivableKind;
  /** The record, archived or not, locked for the change; null when there is none (404). */
  lock(): Promise<R | null>;
  /** Throws when the kind's rule refuses to archive this record. */
  assertArchivable(row: R): void;
  /** Sets (true) or clears (false) `archived_at` and reads the record back. */
  write(archived: boolean): Promise<R>;
  /** Audit entry and webhook event of an actual change. */
  changed(archived: boolean, before: R, after: R): Promise<void>;
}

/**
 * Archive (true): a live record that the kind's rule accepts; an archived one is 409 like any write to it.
 * Unarchive (false): any record; unarchiving a live one changes nothing and records nothing (idempotent).
 * Returns the record as it now is.
 */
export async function switchArchived<R extends ArchivableRow>(
  sw: ArchiveSwitch<R>,
  archived: boolean,
  notFound: () => Error,
): Promise<R> {
  const before = await sw.lock();
  if (!before) throw notFound();
  if (archived) {
    assertNotArchived(sw.kind, before);
    sw.assertArchivable(before);
  } else if (!before.archived_at) {
    return before;
  }
  const after = await sw.write(archived);
  await sw.changed(archived, before, after);
  return after;
}

/** The audit entry of an archive or unarchive (`<kind>.archived` / `<kind>.unarchived`, category settings). */
export function archiveAuditEntry(ctx: ProjectContext, kind: ArchivableKind, on: boolean, row: ArchivableRow) {
  return {
    category: 'settings' as const,
    workspace_id: ctx.workspace.id,
    project_id: ctx.project.id,
    target_type: kind,
    target_id: row.id,
    target_display_name: row.name,
    event_name: `${kind}.${on ? 'archived' : 'unarchived'}`,
    old_value: { archived: !on },
    new_value: { archived: on },
  };
}
