import { z } from 'zod';

// The tenant's movement settings, shared by the movement routes and the lanes file (src/gate/lanes/lane-config.ts),
// and the policy a door hands the check-in service with each movement (checkin.move).

/** The area of every door that names none: the whole park. */
export const PARK_AREA = 'parque';

/** How one door moves people: its direction and area, and the tenant's rules for them. */
export interface MovePolicy {
  direction: 'entrada' | 'saida';
  area: string;
  reentrada: 'nao' | 'mesmo_dia';
  saidaSemEntrada: 'liberar' | 'negar';
  /** People the area holds at most; null: no limit. */
  capacity: number | null;
}

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
