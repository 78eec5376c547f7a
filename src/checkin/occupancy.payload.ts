import type { CheckinService } from './checkin.service.js';
import type { Occupancy } from './movement.answers.js';
import { PARK_AREA, type MovementSettings } from './movement.settings.js';

// The occupancy of the park and its areas, as GET /api/local/ocupacao and GET /api/local/gates show it.

/** People inside each area now, with its capacity: the park and every configured area always listed. */
export function occupancyPayload(checkin: CheckinService, tenantId: number, settings: MovementSettings): Occupancy[] {
  const inside = new Map(checkin.occupancy(tenantId).map((o) => [o.area, o.inside]));
  const names = [...new Set([PARK_AREA, ...Object.keys(settings.areas), ...inside.keys()])];
  return names.map((area) => {
    const capacidade = settings.areas[area]?.capacidade ?? null;
    const dentro = inside.get(area) ?? 0;
    return { area, dentro, capacidade, livres: capacidade === null ? null : Math.max(0, capacidade - dentro) };
  });
}
