import type {
  TenantsTable,
  ApiKeysTable,
  OrdersTable,
  LotsTable,
  PeopleTable,
  AdditionalsTable,
  AdditionalRedemptionsTable,
  VoucherMarksTable,
  CombosTable,
  ComboItemsTable,
  ComboStockTable,
  ClientsTable,
  ClientMarksTable,
} from './tables.sale.js';
import type {
  EventsTable,
  PresenceTable,
  LaneEventsTable,
  SyncPushTable,
  SyncStateTable,
  SyncRejectsTable,
  SyncInboxTable,
  EventMarksTable,
  RetentionMovingTable,
  RetentionRunsTable,
  SiteStateTable,
  SiteMovesTable,
  SiteSettledTable,
  SiteSubjectsTable,
  SiteParkedTable,
  SiteRejectsTable,
  SiteConflictsTable,
  HandheldPairingsTable,
  HandheldDevicesTable,
  HandheldMovesTable,
  HandheldConflictsTable,
} from './tables.log.js';

// The database as kysely sees it: one row type per table of migrations/, kept in two files by kind (sale data
// and logs).
export type * from './tables.sale.js';
export type * from './tables.log.js';

export interface DB {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  orders: OrdersTable;
  lots: LotsTable;
  people: PeopleTable;
  additionals: AdditionalsTable;
  additional_redemptions: AdditionalRedemptionsTable;
  voucher_marks: VoucherMarksTable;
  combos: CombosTable;
  combo_items: ComboItemsTable;
  combo_stock: ComboStockTable;
  clients: ClientsTable;
  client_marks: ClientMarksTable;
  events: EventsTable;
  lane_events: LaneEventsTable;
  presence: PresenceTable;
  sync_push: SyncPushTable;
  sync_state: SyncStateTable;
  sync_rejects: SyncRejectsTable;
  sync_inbox: SyncInboxTable;
  event_marks: EventMarksTable;
  retention_moving: RetentionMovingTable;
  retention_runs: RetentionRunsTable;
  site_state: SiteStateTable;
  site_moves: SiteMovesTable;
  site_settled: SiteSettledTable;
  site_subjects: SiteSubjectsTable;
  site_parked: SiteParkedTable;
  site_rejects: SiteRejectsTable;
  site_conflicts: SiteConflictsTable;
  handheld_pairings: HandheldPairingsTable;
  handheld_devices: HandheldDevicesTable;
  handheld_moves: HandheldMovesTable;
  handheld_conflicts: HandheldConflictsTable;
}
