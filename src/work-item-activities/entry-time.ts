/**
 * The creation time a history entry's id carries. Entry ids are `wt_uuid_v7(created_at)` (migrations
 * ActivityTimeOrderedIds, CheaperActivityStamps): RFC 9562 version 7, the Unix milliseconds in the first 48 bits
 * and the microsecond within that millisecond in the 12 bits after the version, as floor(µs * 4096 / 1000). That
 * map is one-to-one (4096 / 1000 > 1), so ceil(bits * 1000 / 4096) gives the microsecond back.
 *
 * The one-entry read uses it to reach the entry by its whole primary key (workspace_id, work_item_id, created_at,
 * id) instead of scanning the work item's history. Null when the id cannot be one of those: another version
 * (entries written before the time-ordered ids keep random ids), or 12 bits the encoding never produces; the read
 * then falls back to the scan, so a wrong guess costs time, never an answer.
 */
export function entryCreatedAt(id: string): string | null {
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex) || hex[12] !== '7') return null;
  const ms = parseInt(hex.slice(0, 12), 16);
  const micro = Math.ceil((parseInt(hex.slice(13, 16), 16) * 1000) / 4096);
  if (micro > 999) return null;
  const iso = new Date(ms).toISOString(); // yyyy-mm-ddThh:mm:ss.mmmZ
  return `${iso.slice(0, 23)}${String(micro).padStart(3, '0')}Z`;
}
