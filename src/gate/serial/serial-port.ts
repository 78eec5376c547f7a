import { stat } from 'node:fs/promises';
import { SerialPort } from 'serialport';
import type { Log } from '../../lib/log.js';

// The real serial port behind a link (serialport 13), how the link tells a device behind a path,
// and the list of ports the box can see. serial-link.ts keeps a port open; tests plug in their own.
//
// Detecting a dead port. On Linux a hung-up tty (USB unplugged, socat killed) usually makes
// serialport close the port by itself, and a write fails; drivers that write (bridge heartbeats)
// also find out that way. But serialport's poller sometimes misses the hang-up (seen with a write
// in flight), and a line-mode scanner's driver never writes, so the link also probes every
// second: stat() the path and compare device, inode and rdev with what they were right after the
// open (a USB unplug removes the node and its /dev/serial/by-id link, a killed socat leaves it
// dangling, a replug makes a new node: "gone" or "changed" both mean reopen), and read the open
// port's settings (TCGETS2), which fails with EIO on a hung-up tty for good, even once the device
// is back behind the same path: a cable out and in between two probes is still one loss. Neither
// disturbs the device (no bytes, no modem lines, no USB-CDC reset).

/** A port that is open; `onLost` fires at most once when it fails or closes by itself. */
export interface OpenedPort {
  write(data: Uint8Array): Promise<void>;
  /** Rejects once the port is dead (hung up, closed); absent where the port cannot be asked. */
  check?(): Promise<void>;
  close(): Promise<void>;
}

export type OpenPort = (opts: {
  path: string;
  baudRate: number;
  onData(chunk: Buffer): void;
  onLost(err: Error): void;
}) => Promise<OpenedPort>;

export const identifyDevice = async (path: string): Promise<string> => {
  const st = await stat(path);
  return `${st.dev}:${st.ino}:${st.rdev}`;
};

export const openSerialPort: OpenPort = async ({ path, baudRate, onData, onLost }) => {
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  let lost = false;
  const lose = (err: Error) => {
    if (lost) return;
    lost = true;
    onLost(err);
  };
  port.on('data', onData);
  port.on('error', lose);
  port.on('close', (err?: Error | null) => lose(err ?? new Error('porta fechada')));
  // Only for a port that answers it right after the open (Linux ttys do; other platforms may not).
  const readSettings = async () => {
    if (!port.isOpen || !port.port) throw new Error('porta fechada');
    await port.port.getBaudRate();
  };
  const canCheck = await readSettings().then(
    () => true,
    () => false,
  );
  return {
    ...(canCheck ? { check: readSettings } : {}),
    write: (data) =>
      new Promise<void>((resolve, reject) => {
        // A write on a closed SerialPort waits for a reopen that never comes.
        if (!port.isOpen) return reject(new Error('porta fechada'));
        port.write(Buffer.from(data), (err) => (err ? reject(err) : resolve()));
      }),
    close: () =>
      new Promise<void>((resolve) => {
        lost = true;
        if (!port.isOpen) return resolve();
        port.close(() => resolve());
      }),
  };
};

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `SerialPort.list()` needs udevadm (absent in containers): then it is [] and a warning. */
export async function listSerialPorts(
  log: Log,
  list: () => Promise<PortInfo[]> = () => SerialPort.list(),
): Promise<PortInfo[]> {
  try {
    return await list();
  } catch (err) {
    log.warn({ err: message(err) }, 'cannot list serial ports (udevadm missing?); use /dev/serial/by-id paths');
    return [];
  }
}

export type PortInfo = Awaited<ReturnType<typeof SerialPort.list>>[number];
