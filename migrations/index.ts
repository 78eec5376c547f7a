import type { Migration } from 'kysely';
import * as m0001 from './0001_core.js';
import * as m0002 from './0002_sync.js';
import * as m0003 from './0003_lane_events.js';
import * as m0004 from './0004_movements.js';
import * as m0005 from './0005_storage_probe.js';
import * as m0006 from './0006_sync_inbox.js';
import * as m0007 from './0007_console.js';
import * as m0008 from './0008_search.js';
import * as m0009 from './0009_retention.js';
import * as m0010 from './0010_clock.js';
import * as m0011 from './0011_reversal_names.js';
import * as m0012 from './0012_order_revision.js';
import * as m0013 from './0013_site.js';
import * as m0014 from './0014_handheld.js';
import * as m0015 from './0015_sync_pending.js';
import * as m0016 from './0016_presence_person.js';
import * as m0017 from './0017_search_upkeep.js';
import * as m0018 from './0018_person_events.js';
import * as m0019 from './0019_handheld_move_ids.js';

/** Every migration, in order. Listed statically so the same code runs from src (tests) and dist (production). */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_sync': m0002,
  '0003_lane_events': m0003,
  '0004_movements': m0004,
  '0005_storage_probe': m0005,
  '0006_sync_inbox': m0006,
  '0007_console': m0007,
  '0008_search': m0008,
  '0009_retention': m0009,
  '0010_clock': m0010,
  '0011_reversal_names': m0011,
  '0012_order_revision': m0012,
  '0013_site': m0013,
  '0014_handheld': m0014,
  '0015_sync_pending': m0015,
  '0016_presence_person': m0016,
  '0017_search_upkeep': m0017,
  '0018_person_events': m0018,
  '0019_handheld_move_ids': m0019,
};
