/**
 * Room for large answers while they are sent, in memory shared with worker threads. A new buffer for
 * every megabyte-sized answer is new external memory, and V8 answers a few dozen megabytes of it with
 * a full garbage collection of the event loop's heap, while every scan waits (issue 11): answers
 * written into these slots cost none. An answer that does not fit, or that comes while every slot is
 * being sent, gets a buffer of its own.
 */
export interface ByteSlots {
  readonly shared: SharedArrayBuffer;
  readonly slotBytes: number;
  /** A free slot's index, or -1 when every slot is in use. */
  take(): number;
  give(slot: number): void;
}

/** Bytes to send and what to call once they are sent (or the client went away). */
export interface Bytes {
  bytes: Buffer;
  done(): void;
}

export function createByteSlots(count = 8, slotBytes = 4 * 1024 * 1024): ByteSlots {
  const shared = new SharedArrayBuffer(count * slotBytes);
  const free = Array.from({ length: count }, (_, i) => count - 1 - i);
  return {
    shared,
    slotBytes,
    take: () => free.pop() ?? -1,
    give: (slot) => {
      if (slot >= 0) free.push(slot);
    },
  };
}

/** The first `length` bytes of a slot, given back by `done()` (once, however often it is called). */
export function slotBytes(slots: ByteSlots, slot: number, length: number): Bytes {
  let given = false;
  return {
    bytes: Buffer.from(slots.shared, slot * slots.slotBytes, length),
    done: () => {
      if (!given) slots.give(slot);
      given = true;
    },
  };
}

const encoder = new TextEncoder();

/**
 * Writes UTF-8 text piece by piece into a slot of its own. Once a piece does not fit (or when no slot
 * was free), what was written moves to buffers of its own, the slot is given back, and the rest
 * follows there: `finish()` answers the same bytes either way.
 */
export function slotWriter(slots: ByteSlots) {
  let slot = slots.take();
  let at = 0;
  const spilled: Buffer[] = [];
  return {
    write(text: string): void {
      if (slot < 0) {
        spilled.push(Buffer.from(text));
        return;
      }
      const room = new Uint8Array(slots.shared, slot * slots.slotBytes + at, slots.slotBytes - at);
      const { read, written } = encoder.encodeInto(text, room);
      at += written;
      if (read === text.length) return;
      spilled.push(Buffer.from(Buffer.from(slots.shared, slot * slots.slotBytes, at)), Buffer.from(text.slice(read)));
      slots.give(slot);
      slot = -1;
    },
    finish(): Bytes {
      return slot < 0 ? { bytes: Buffer.concat(spilled), done: () => undefined } : slotBytes(slots, slot, at);
    },
  };
}
