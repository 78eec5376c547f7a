// A serial line as the drivers see it. serial-link.ts makes one from a real port (with
// reconnection); tests may make one from a pty directly.

export type LinkState = 'up' | 'down';

export interface ByteLink {
  readonly path: string;
  /** Resolves once the bytes are handed to the OS; rejects while the port is down. */
  write(data: Uint8Array): Promise<void>;
  onData(listener: (chunk: Buffer) => void): () => void;
  /** 'up' after every (re)open, 'down' on every loss; drivers reset their protocol state on 'up'. */
  onState(listener: (state: LinkState) => void): () => void;
  isUp(): boolean;
  close(): Promise<void>;
}
