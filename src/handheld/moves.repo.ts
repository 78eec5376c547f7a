import type { Db } from '../db/open.js';

// Every movement id a device sent (migrations/0014_handheld.ts handheld_moves): a repeat answers "já recebido".

export const knownMove = (db: Db, deviceId: number, id: string) =>
  db.statement('SELECT result FROM handheld_moves WHERE device_id = ? AND move_id = ?').get(deviceId, id) as
    { result: string } | undefined;

export function keepMove(
  db: Db,
  p: { device: number; id: string; at: string; how: string; result: string; classes?: string[] },
) {
  db.statement(
    'INSERT OR IGNORE INTO handheld_moves (device_id, move_id, received_at, how, result, classes) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(p.device, p.id, p.at, p.how, p.result, JSON.stringify(p.classes ?? []));
}
