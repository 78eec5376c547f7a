// A keyboard-wedge imager types the code and Enter (or Tab). Keys are collected at the document level, so no field
// needs the focus; keys typed into a real field (the operator's name) are left to it.
//
// The same code seen again within REPEAT_MS of the last time it was seen is the same read, by the lanes' rule
// (src/gate/lanes/scanner-lines.ts, createDebouncer; debounceMs 2000): the window slides, so a QR held before the
// camera, which reads it every few hundred ms, is one scan however long it is held, and two tickets held up together
// are two scans, not a ping-pong of repeats.

export const REPEAT_MS = 2000;
const TRACKED = 64;

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  altKey?: boolean;
  metaKey?: boolean;
}

/** A code read: `repeat` when it is the same read as one before (not to be decided again). */
export interface Read {
  code: string;
  repeat: boolean;
}

/** Feeds keys, returns a read when a code ends; `now` in ms of a monotonic clock. */
export function createWedge(repeatMs = REPEAT_MS) {
  let buffer = '';
  const lastSeen = new Map<string, number>();
  const seen = (code: string, now: number): Read => {
    for (const [c, at] of lastSeen) if (now - at >= repeatMs) lastSeen.delete(c);
    const repeat = lastSeen.has(code);
    lastSeen.delete(code);
    lastSeen.set(code, now);
    while (lastSeen.size > TRACKED) lastSeen.delete(lastSeen.keys().next().value!);
    return { code, repeat };
  };
  return {
    key(e: KeyLike, now: number): Read | null {
      if (e.ctrlKey || e.altKey || e.metaKey) return null;
      if (e.key === 'Enter' || e.key === 'Tab') {
        const code = buffer.trim();
        buffer = '';
        return code ? seen(code, now) : null;
      }
      if (e.key.length === 1) buffer += e.key;
      return null;
    },
    /** A code read another way (the camera), under the same repeat rule. */
    read: (code: string, now: number): Read => seen(code, now),
  };
}

export type Wedge = ReturnType<typeof createWedge>;

/** Whether a key event belongs to a real field rather than to the wedge. */
export const inField = (target: EventTarget | null): boolean => {
  const el = target as { tagName?: string; isContentEditable?: boolean } | null;
  return (
    !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || !!el.isContentEditable)
  );
};
