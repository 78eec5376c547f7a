// Whether the box is reachable, from what the calls to it say: offline after FAIL_TO_OFFLINE failures in a row (a
// scan's timeout or a heartbeat's), online again after OK_TO_ONLINE heartbeats in a row. Pure: the engine feeds it.

export const FAIL_TO_OFFLINE = 2;
export const OK_TO_ONLINE = 3;

export type Mode = 'online' | 'offline';

export interface Link {
  readonly mode: Mode;
  /** A call the box did not answer (timeout, network error, 5xx). */
  failed(kind: 'scan' | 'heartbeat'): Mode;
  /** A call the box answered. Offline, only heartbeats count toward coming back. */
  answered(kind: 'scan' | 'heartbeat'): Mode;
}

export function createLink(start: Mode = 'online'): Link {
  let mode = start;
  let fails = 0;
  let oks = 0;
  return {
    get mode() {
      return mode;
    },
    failed(kind) {
      oks = 0;
      fails += 1;
      if (mode === 'online' && (kind === 'heartbeat' || fails >= FAIL_TO_OFFLINE)) mode = 'offline';
      return mode;
    },
    answered(kind) {
      fails = 0;
      if (mode === 'offline' && kind === 'heartbeat') {
        oks += 1;
        if (oks >= OK_TO_ONLINE) {
          mode = 'online';
          oks = 0;
        }
      }
      return mode;
    },
  };
}
