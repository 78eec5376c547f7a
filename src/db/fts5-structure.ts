// FTS5's structure record (the row id 10 of a table's %_data), read to tell whether a 'merge' would find work without
// running one (a write): a level with a merge under way, or with at least `usermerge` segments (FTS5's default 4),
// which is what a 'merge' with a positive page count looks for. The layout is fts5StructureDecode's in fts5_index.c:
// a 4-byte cookie, "\xff\x00\x00\x01" in version 2 (contentless_delete tables), then varints: levels, segments, the
// write counter, and per level its merge count and segment count, each segment 3 varints (5 more in version 2).

/** SQLite's varint (sqlite3GetVarint): 7 bits a byte, big-endian, the 9th byte whole; [value, next offset]. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let k = 0; k < 8; k++) {
    const c = b[at + k]!;
    v = v * 128 + (c & 0x7f);
    if (c < 0x80) return [v, at + k + 1];
  }
  return [v * 256 + b[at + 8]!, at + 9];
}

/** Whether FTS5's 'merge' would find work in the structure record `block`. */
export function mergeWaiting(block: Uint8Array, usermerge = 4): boolean {
  const v2 = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1;
  const [levels, first] = varint(block, v2 ? 8 : 4);
  let at = first;
  let merging: number;
  let segments: number;
  [, at] = varint(block, at); // segments in all
  [, at] = varint(block, at); // write counter
  for (let level = 0; level < levels; level++) {
    [merging, at] = varint(block, at);
    [segments, at] = varint(block, at);
    if (merging > 0 || segments >= usermerge) return true;
    for (let i = 0; i < segments * (v2 ? 8 : 3); i++) [, at] = varint(block, at);
  }
  return false;
}
