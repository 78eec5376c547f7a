import { z } from 'zod';

// The handheld endpoints' wire shapes (docs/handheld.md): the box validates with them and the app (src/handheld/web)
// imports their types. Every answer is the spec's envelope ({ success, data } or { success: false, error }).

/** The header a paired device sends its key in (valid only for /api/handheld/*). */
export const HANDHELD_KEY_HEADER = 'x-handheld-key';
/** Movements per upload, and the largest upload body. */
export const MAX_UPLOAD_ITEMS = 500;
export const MAX_UPLOAD_BYTES = 1024 * 1024;
/** A device's clock further than this from the box's makes its movements `relogio_handheld`. */
export const DEVICE_CLOCK_SKEW_MS = 2 * 60 * 1000;

/**
 * A device-made movement id (the app's are random UUIDs), kept by the box to answer a repeat "já recebido" whatever key
 * of the tenant brings it with the same code (src/handheld/moves.repo.ts).
 */
export const movementId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'id: 8 a 64 letras, dígitos, _ ou -');
const code = z.string().trim().min(1).max(256);
const operator = z.string().trim().min(1).max(80);
const instant = z.iso.datetime({ offset: true });

// --- pairing ---------------------------------------------------------------------------------------------------
export const pairRequest = z.strictObject({
  token: z.string().min(16).max(128),
  nome: z.string().trim().min(1).max(40),
  versao_app: z.string().trim().min(1).max(40),
});
export const pairAnswer = z.strictObject({
  chave: z.string(),
  dispositivo: z.strictObject({ id: z.number().int(), nome: z.string() }),
  tenant: z.string(),
  data_local: z.string(),
});

// --- the day's data (snapshot and delta) -----------------------------------------------------------------------
/**
 * The columns of each row of `pessoas`, `pedidos`, `adicionais` and `lotes`, in order. A QR is never sent: `qr` is
 * `qrHash(code)` (src/handheld/qr-hash.ts), which the device computes for what it scans. A person's `lote` is the key
 * of a row of `lotes` (`lotKey`): a kind of ticket's names go once, not with every person.
 */
export const PERSON_COLUMNS = ['qr', 'pedido', 'lote', 'data_uso', 'tipo_ingresso', 'checkin_em', 'nome'] as const;
export const ORDER_COLUMNS = ['numero_pedido', 'status', 'grupo'] as const;
export const ADDITIONAL_COLUMNS = ['qr', 'pedido', 'quantidade', 'usos'] as const;
export const LOT_COLUMNS = ['lote', 'nome_ingresso', 'nome_lote'] as const;

const nullable = <T extends z.ZodType>(t: T) => t.nullable();
export const personRow = z.tuple([
  z.string(), // qr (hash)
  z.string(), // numero_pedido
  z.string(), // lote: the key of its row in `lotes`
  z.string(), // data_uso YYYY-MM-DD
  z.string(), // tipo_ingresso
  nullable(z.string()), // checkin_em: the active check-in, null when none (or reversed)
  nullable(z.string()), // nome: only with GATE_HANDHELD_NOMES=true
]);
export const orderRow = z.tuple([
  z.string(), // numero_pedido
  z.string(), // status: pago, cancelado, reembolsado
  z.string(), // grupo: qrHash of the order's group QR (its number)
]);
export const lotRow = z.tuple([
  z.string(), // lote (key)
  z.string(), // nome_ingresso: the ticket type's name (e.g. Passaporte Dia)
  z.string(), // nome_lote: the variation's name (e.g. Criança)
]);
export const additionalRow = z.tuple([
  z.string(), // qr (hash)
  z.string(), // numero_pedido
  z.number().int(), // quantidade bought
  z.array(z.string()), // usos: checkin_em of each unit not reversed, oldest first
]);

export const dayData = z.strictObject({
  /** The park-local day the data is for: a device refuses offline decisions on another day's data. */
  data_local: z.string(),
  gerado_em: z.string(),
  /** Give it back as `desde` for what changed since. */
  cursor: z.string(),
  /** true: the whole day (replace what the device has); false: only rows that changed (upsert by key). */
  completo: z.boolean(),
  pessoas: z.array(personRow),
  pedidos: z.array(orderRow),
  adicionais: z.array(additionalRow),
  /** The kinds of ticket the people rows name. */
  lotes: z.array(lotRow),
});
export const dayDataQuery = z.strictObject({ desde: z.string().max(100).optional() });

// --- a scan decided by the box (online) ------------------------------------------------------------------------
export const scanRequest = z.strictObject({
  id: movementId,
  codigo: code,
  operador: operator,
});
/** Refusal codes are the rules' (RefusalCode); `ok` a check-in. */
export const scanAnswer = z.strictObject({
  id: z.string(),
  resultado: z.string(),
  mensagem: z.string(),
  detalhes: z.record(z.string(), z.unknown()).optional(),
  /** The box had this id already (a retry after a timeout): the result is the first one's. */
  ja_recebido: z.boolean(),
  /** qrHash of the people this scan let in (none on a refusal): what the device counts and shows. */
  liberados: z.array(z.string()),
  /** The order of the scanned code now, in the day data's columns, for the device's copy. */
  pessoas: z.array(personRow),
  adicionais: z.array(additionalRow),
  pedidos: z.array(orderRow),
  lotes: z.array(lotRow),
});

// --- movements decided on the device (offline), uploaded later -------------------------------------------------
export const uploadItem = z.strictObject({
  id: movementId,
  codigo: code,
  acao: z.literal('checkin'),
  /** What the device decided: `ok`, or the refusal's code (uploaded for the event log). */
  resultado: z.string().regex(/^(ok|[A-Z_]{3,40})$/),
  decidido_em: instant,
  operador: operator,
  /** The day data the device decided on (its data_local). */
  dados_de: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
});
export const uploadRequest = z.strictObject({
  /** The device's clock when it sent: compared with the box's. */
  enviado_em: instant,
  /** Items are checked one by one (a malformed one is refused alone): see uploadItem. */
  itens: z.array(z.unknown()).min(1),
});
export const HANDHELD_CLASSES = [
  'duplo_handheld',
  'cancelado_no_handheld',
  'desconhecido_handheld',
  'relogio_handheld',
] as const;
export const uploadItemAnswer = z.strictObject({
  /** The item's id, or null when it had none readable. */
  id: z.string().nullable(),
  /** aplicado: recorded now; ja_recebido: recorded before; recusado: malformed, nothing recorded (see erro). */
  estado: z.enum(['aplicado', 'ja_recebido', 'recusado']),
  classificacao: z.array(z.enum(HANDHELD_CLASSES)),
  erro: z.strictObject({ code: z.string(), message: z.string() }).optional(),
});
export const uploadAnswer = z.strictObject({ itens: z.array(uploadItemAnswer) });

// --- the device tells how it is --------------------------------------------------------------------------------
export const deviceState = z.strictObject({
  versao_app: z.string().trim().min(1).max(40),
  /** gerado_em of the day data it holds, or null. */
  dados_em: z.string().max(40).nullable(),
  fila: z.number().int().min(0),
  decisoes_offline_hoje: z.number().int().min(0),
});
export const deviceStateAnswer = z.strictObject({
  data_local: z.string(),
  agora: z.string(),
  /** The device's name (its terminal in the event log). */
  nome: z.string(),
});

// --- the console's handhelds screen --------------------------------------------------------------------------
export const handheldDevice = z.strictObject({
  id: z.number().int(),
  nome: z.string(),
  pareado_em: z.string(),
  pareado_por: z.string(),
  visto_em: z.string().nullable(),
  versao_app: z.string().nullable(),
  dados_em: z.string().nullable(),
  fila: z.number().int(),
  decisoes_offline_hoje: z.number().int(),
  revogado_em: z.string().nullable(),
  /** Movements queued and unseen for 15 minutes. */
  alarme: z.boolean(),
});
export const pairingAnswer = z.strictObject({
  token: z.string(),
  url: z.string(),
  expira_em: z.string(),
  qr_svg: z.string(),
});
export type HandheldDevice = z.infer<typeof handheldDevice>;
export type PairingAnswer = z.infer<typeof pairingAnswer>;
export type DayData = z.infer<typeof dayData>;
export type PersonRow = z.infer<typeof personRow>;
export type OrderRow = z.infer<typeof orderRow>;
export type AdditionalRow = z.infer<typeof additionalRow>;
export type LotRow = z.infer<typeof lotRow>;
export type ScanAnswer = z.infer<typeof scanAnswer>;
export type UploadItem = z.infer<typeof uploadItem>;
export type UploadItemAnswer = z.infer<typeof uploadItemAnswer>;
export type HandheldClass = (typeof HANDHELD_CLASSES)[number];
