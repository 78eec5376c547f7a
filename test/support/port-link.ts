import { SerialPort } from 'serialport';
import type { ByteLink, LinkState } from '../../src/gate/serial/byte-link.js';

/**
 * The smallest ByteLink over a real port, for driver tests on ptys: opens once, reports 'down'
 * when the port closes by itself (socat killed) and never reopens. The production link with
 * reconnection is src/gate/serial/serial-link.ts.
 */
export async function openPortLink(path: string, baudRate = 9600): Promise<ByteLink> {
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const dataListeners = new Set<(chunk: Buffer) => void>();
  const stateListeners = new Set<(state: LinkState) => void>();
  let up = true;
  port.on('data', (chunk: Buffer) => {
    for (const l of dataListeners) l(chunk);
  });
  // Errors also arrive through write callbacks and 'close'; without a listener they would crash the test.
  port.on('error', () => {});
  port.setMaxListeners(100);
  port.on('close', () => {
    if (!up) return;
    up = false;
    for (const l of stateListeners) l('down');
  });

  return {
    path,
    write(data) {
      if (!up) return Promise.reject(new Error(`${path} is closed`));
      return new Promise((resolve, reject) => {
        // A hang-up while the write or drain is pending may never call them back.
        const onClose = () => reject(new Error(`${path} closed during a write`));
        port.once('close', onClose);
        const done = (err: Error | null | undefined) => {
          port.off('close', onClose);
          if (err) reject(err);
          else resolve();
        };
        port.write(Buffer.from(data), (err) => (err ? done(err) : port.drain(done)));
      });
    },
    onData(listener) {
      dataListeners.add(listener);
      return () => dataListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    isUp: () => up,
    async close() {
      up = false;
      if (!port.isOpen) return;
      await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}
