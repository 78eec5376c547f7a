/**
 * Several listeners behind one function: what the check-in service calls for each result and the lanes for
 * each grant, heard by whatever the box starts later (the scan log, metrics, the consoles' live stream).
 */
export interface Listeners<A extends unknown[]> {
  /** Tells every listener, in the order they were added. */
  emit(...args: A): void;
  add(listener: (...args: A) => void): void;
}

export function createListeners<A extends unknown[]>(): Listeners<A> {
  const listeners: ((...args: A) => void)[] = [];
  return {
    emit: (...args) => {
      for (const l of listeners) l(...args);
    },
    add: (listener) => void listeners.push(listener),
  };
}
