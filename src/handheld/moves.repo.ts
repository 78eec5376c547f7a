import type { Db } from '../db/open.js';
import type { Device } from './devices.repo.js';

// Every movement id a device sent (migrations/0014_handheld.ts and 0019 handheld_moves): a repeat answers "já
// recebido" with the first answer, whatever key of the tenant brings it (docs/handheld.md, "Paired again").

export interface KnownMove {
  result: string;
  /** The first answer's classifications (an upload's). */
  classes: string[];
  /** qrHash of the people an online scan let in. */
  admitted: string[];
}

/**
 * The movement `id` if the box has it: this device's, or another device's of the tenant for the same code (the same
 * device paired again, or a copy of its queue). Ids are random UUIDs: another code under a known id is another
 * movement, recorded as this device's own.
 */
export function knownMove(db: Db, device: Device, id: string, code: string): KnownMove | undefined {
  const row = db
    .statement(
      `SELECT m.result, m.classes, m.admitted FROM handheld_moves m JOIN handheld_devices d ON d.id = m.device_id
        WHERE m.move_id = ? AND d.tenant_id = ? AND (m.device_id = ? OR m.code = ?)
        ORDER BY m.device_id = ? DESC LIMIT 1`,
    )
    .get(id, device.tenantId, device.id, code, device.id) as
    { result: string; classes: string; admitted: string } | undefined;
  return (
    row && {
      result: row.result,
      classes: JSON.parse(row.classes) as string[],
      admitted: JSON.parse(row.admitted) as string[],
    }
  );
}

export function keepMove(
  db: Db,
  p: {
    device: number;
    id: string;
    code: string;
    at: string;
    how: string;
    result: string;
    classes?: string[];
    admitted?: string[];
  },
) {
  db.statement(
    `INSERT OR IGNORE INTO handheld_moves (device_id, move_id, code, received_at, how, result, classes, admitted)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.device,
    p.id,
    p.code,
    p.at,
    p.how,
    p.result,
    JSON.stringify(p.classes ?? []),
    JSON.stringify(p.admitted ?? []),
  );
}
