// A keyboard-wedge imager types the code and Enter (or Tab). Keys are collected at the document level, so no field
// needs the focus; keys typed into a real field (the operator's name) are left to it. The same code read again
// within REPEAT_MS counts once (an imager often reads a code twice while the attendant holds it up).

export const REPEAT_MS = 2000;

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  altKey?: boolean;
  metaKey?: boolean;
}

/** Feeds keys, returns a code when one ends; `now` in ms. */
export function createWedge(repeatMs = REPEAT_MS) {
  let buffer = '';
  let last: { code: string; at: number } | null = null;
  return {
    key(e: KeyLike, now: number): string | null {
      if (e.ctrlKey || e.altKey || e.metaKey) return null;
      if (e.key === 'Enter' || e.key === 'Tab') {
        const code = buffer.trim();
        buffer = '';
        if (!code) return null;
        if (last && last.code === code && now - last.at < repeatMs) return null;
        last = { code, at: now };
        return code;
      }
      if (e.key.length === 1) buffer += e.key;
      return null;
    },
    /** A code read another way (the camera), under the same repeat rule. */
    read(code: string, now: number): string | null {
      if (last && last.code === code && now - last.at < repeatMs) return null;
      last = { code, at: now };
      return code;
    },
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
