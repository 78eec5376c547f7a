import { SerialPort } from 'serialport';

/**
 * A CH340 LCUS relay module on the device side of a pty: reads `A0 channel state checksum`,
 * ignores anything whose checksum is wrong (as the module does), never answers.
 */
export interface LcusChange {
  channel: number;
  on: boolean;
  /** performance.now() when the command was read. */
  at: number;
}

export interface LcusSim {
  isOn(channel: number): boolean;
  /** Every accepted command in order, including repeats of the current state. */
  readonly changes: readonly LcusChange[];
  /** Every 4-byte command read, accepted or not, as hex (`a0 01 01 a2`). */
  readonly commands: readonly string[];
  rejected(): number;
  close(): Promise<void>;
}

const hex = (b: Uint8Array) =>
  Buffer.from(b)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');

export async function openLcusSim(path: string): Promise<LcusSim> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('error', () => {});
  const state = new Map<number, boolean>();
  const changes: LcusChange[] = [];
  const commands: string[] = [];
  let rejected = 0;
  let buf = Buffer.alloc(0);

  port.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const start = buf.indexOf(0xa0);
      if (start < 0) {
        buf = Buffer.alloc(0);
        return;
      }
      buf = buf.subarray(start);
      if (buf.length < 4) return;
      const [head, channel, on, sum] = [buf[0]!, buf[1]!, buf[2]!, buf[3]!];
      commands.push(hex(buf.subarray(0, 4)));
      if (((head + channel + on) & 0xff) !== sum || channel < 1 || channel > 8 || on > 1) {
        rejected++;
        buf = buf.subarray(1);
        continue;
      }
      state.set(channel, on === 1);
      changes.push({ channel, on: on === 1, at: performance.now() });
      buf = buf.subarray(4);
    }
  });

  return {
    isOn: (channel) => state.get(channel) ?? false,
    changes,
    commands,
    rejected: () => rejected,
    async close() {
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}
