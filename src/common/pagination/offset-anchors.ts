/** Where an offset page starts: the ordering key of the row just before it, read while the live set was `generation`. */
export interface OffsetAnchor {
  generation: string;
  value: string;
  id: string;
}

/** Anchors kept per process; more than this and the oldest go. */
const MAX_ANCHORS = 5_000;

/**
 * Offset pages translated to keyset pages. Serving `offset=N` means skipping N index entries (10,000 at the cap);
 * the row just before the page (position N-1) is remembered, with the list's live-set change counter read in the
 * same statement. The next request for offset N, or the page after it, reads the counter and the keyset page
 * after that row in one statement, and keeps the page only if the counter has not moved: then no row entered, left
 * or moved in an ordering whose keys never change, so it is exactly the page the offset names. Otherwise the
 * offset is skipped as before. A client paging by offset, or many clients reading the same deep page, cost what a
 * cursor page costs.
 */
export class OffsetAnchors {
  private readonly anchors = new Map<string, OffsetAnchor>();

  get(key: string): OffsetAnchor | undefined {
    return this.anchors.get(key);
  }

  set(key: string, anchor: OffsetAnchor): void {
    this.anchors.delete(key);
    if (this.anchors.size >= MAX_ANCHORS) this.anchors.delete(this.anchors.keys().next().value as string);
    this.anchors.set(key, anchor);
  }

  delete(key: string): void {
    this.anchors.delete(key);
  }
}
