// A serial line as the drivers see it. serial-link.ts makes one from a real port (with
// reconnection); tests may make one from a pty directly.

export type LinkState = 'up' | 'down';

export interface ByteLink {
  readonly path: string;
  /** Resolves once the bytes are handed to the OS; rejects while the port is down. */
  write(data: Uint8Array): Promise<void>;
  onData(listener: (chunk: Buffer) => void): () => void;
  /**
   * 'up' after every (re)open, 'down' on every loss and once when the very first open fails, as
   * each happens; drivers reset their protocol state on 'up'.
   */
  onState(listener: (state: LinkState) => void): () => void;
  isUp(): boolean;
  /**
   * For drivers whose peer stopped answering while the port looks fine (e.g. a bridge board that
   * ignores 10 retransmissions): drop the port and reopen it with the link's backoff. Links that
   * cannot reopen leave it out.
   */
  reconnect?(reason: string): void;
  close(): Promise<void>;
}
