import { z } from 'zod';
import type { MovePolicy } from './rules/movement.js';

// The tenant's movement settings, shared by the movement routes and the lanes file (src/gate/lanes/lane-config.ts),
// and the policy a door hands the check-in service with each movement (checkin.move). PARK_AREA and
// MovePolicy are the movement rules' own (rules/movement.ts), published here with the settings.
export { PARK_AREA, type MovePolicy } from './rules/movement.js';

/** The tenant's movement settings: the lanes file's, or these when there is none. */
export interface MovementSettings {
  reentrada: MovePolicy['reentrada'];
  saidaSemEntrada: MovePolicy['saidaSemEntrada'];
  areas: Record<string, { capacidade: number }>;
}
export const DEFAULT_MOVEMENT_SETTINGS: MovementSettings = { reentrada: 'nao', saidaSemEntrada: 'liberar', areas: {} };

/** An area's name, in the lanes file and on the wire. */
export const areaName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'nome de área: letras minúsculas, dígitos, - e _ (até 40)');
