import { z } from 'zod';
import { nullableEnum } from '../lib/wire.js';

/** What the cloud said of a pushed event (db/schema.ts's PushResult). */
export const PUSH_RESULTS = [
  'aceito',
  'ja_utilizado_na_nuvem',
  'fora_do_prazo',
  'cancelado_na_nuvem',
  'outro',
] as const;
type PushResult = (typeof PUSH_RESULTS)[number];
/** What the cloud did not accept. */
export const CLOUD_CONFLICT_KINDS = PUSH_RESULTS.filter((r) => r !== 'aceito') as Exclude<PushResult, 'aceito'>[];
/** What the box itself finds: the site's second entry of a ticket (docs/site.md), what a handheld's upload revealed. */
export const LOCAL_CONFLICT_KINDS = [
  'duplo_no_site',
  'duplo_handheld',
  'cancelado_no_handheld',
  'desconhecido_handheld',
  'relogio_handheld',
] as const;
export type LocalConflictKind = (typeof LOCAL_CONFLICT_KINDS)[number];
/** Every conflict the box lists: the cloud's, and the box's own (LOCAL_CONFLICT_KINDS). */
export type ConflictKind = Exclude<PushResult, 'aceito'> | LocalConflictKind;
export const CONFLICT_KINDS: ConflictKind[] = [...CLOUD_CONFLICT_KINDS, ...LOCAL_CONFLICT_KINDS];

// The central office's routes (docs/sync.md): the one description of what sync.routes.ts and
// conflicts.payload.ts build, read by their types, the routes' response schemas, the console and /docs.

const when = z.string().nullable();
const count = z.number().int().min(0);

export const syncStatusAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    nuvem_configurada: z.boolean().describe('Esta caixa sincroniza o tenant da chave'),
    online: z.boolean().nullable().describe('A nuvem respondeu à última chamada; null sem nuvem configurada'),
    ultima_comunicacao_em: when,
    ultimo_pull_ok_em: when,
    ultimo_push_ok_em: when,
    ultima_atualizacao_em: when,
    ultima_atualizacao_completa_em: when,
    ultimo_erro: z.strictObject({ mensagem: z.string(), em: when }).nullable(),
    fila: z.strictObject({
      pendentes: count,
      em_nova_tentativa: count,
      evento_mais_antigo_em: when,
      proxima_tentativa_em: when.describe(
        'Quando o próximo evento da fila será tentado de novo, no mais tardar (nova tentativa ou fim de uma espera por outra caixa)',
      ),
      aguardando_outra_caixa: count.describe(
        'Eventos retidos: um movimento anterior do mesmo ingresso, feito em outra caixa do site, ainda não foi confirmado pela nuvem; vão assim que ela confirmar, ou 24 h depois daquele movimento',
      ),
      aguardando_outra_caixa_ate: when.describe('Quando termina a mais longa dessas esperas, no mais tardar'),
    }),
    resultados: z.record(z.enum(PUSH_RESULTS), count).describe('Eventos por resultado na nuvem'),
    registros_rejeitados: z.strictObject({
      total: count,
      recentes: z.array(
        z.strictObject({ tipo: z.string(), referencia: z.string(), motivo: z.string(), em: z.string() }),
      ),
    }),
  }),
});

const conflictSchema = z.strictObject({
  evento_id: z.number().int(),
  ocorrido_em: z.string(),
  data_local: z.string().describe('Dia do evento no fuso do parque'),
  acao: z.string(),
  modo: z.string(),
  codigo: z.string(),
  qr_code: z.string().nullable(),
  numero_pedido: z.string().nullable(),
  terminal: z.string().nullable(),
  operador: z.string().nullable(),
  chave_api: z.string().nullable(),
  tipo: nullableEnum(CONFLICT_KINDS as [string, ...string[]]),
  codigo_nuvem: z.string().nullable(),
  mensagem_nuvem: z.string().nullable(),
  em_nuvem: z.string().nullable(),
  enviado_em: z.string().nullable(),
  resolvido_em: z.string().nullable(),
  tentativas: count,
  // Only on a duplo_no_site or a duplo_handheld: the row is the entry this box learned of last; these name the other
  // one (a cloud conflict's answer has none of them, as before the site).
  caixa: z.string().nullable().optional().describe('duplo_no_site: caixa que fez este evento'),
  outro_evento_id: z
    .number()
    .int()
    .optional()
    .describe('duplo_no_site, duplo_handheld: a outra entrada do mesmo ingresso'),
  outro_ocorrido_em: z.string().optional(),
  outro_caixa: z.string().nullable().optional().describe('Caixa da outra entrada; null: esta caixa, antes do site'),
  outro_terminal: z.string().nullable().optional(),
  outro_operador: z.string().nullable().optional(),
});

export const conflictsAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    conflitos: z.array(conflictSchema),
    total: count.describe('Conflitos que atendem aos filtros, em todas as páginas'),
    mensagem: z.string().optional(),
  }),
});

const eventSchema = z.strictObject({
  id: z.number().int(),
  ocorrido_em: z.string(),
  acao: z.string().describe('checkin, estorno, entrada, reentrada, saida...'),
  modo: z.string(),
  codigo: z.string(),
  qr_code: z.string().nullable(),
  numero_pedido: z.string().nullable(),
  resultado: z.string().describe('ok ou o código de erro'),
  chave_api: z.string().nullable(),
  terminal: z.string().nullable(),
  operador: z.string().nullable(),
  origem: z.string().describe('api, pista ou console'),
  detalhes: z.record(z.string(), z.unknown()).nullable(),
  relogio_suspeito: z
    .string()
    .nullable()
    .describe('Por que o relógio da caixa era suspeito quando o evento foi gravado'),
  caixa: z.string().optional().describe('Num site: a caixa que fez este movimento, quando não foi esta'),
  nuvem: z.strictObject({
    situacao: z
      .string()
      .describe('pendente, um resultado da nuvem, nao_enviado, somente_local ou outra_caixa (quem envia é ela)'),
    tentativas: count,
    enviado_em: when,
    resolvido_em: when,
    codigo: z.string().nullable(),
    mensagem: z.string().nullable(),
    em: when,
  }),
  sincronizado: z.boolean(),
  sincronizado_em: when,
});

export const eventsAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    eventos: z.array(eventSchema),
    total: count.describe('Eventos nesta página'),
    mensagem: z.string().optional(),
  }),
});

export type Conflict = z.output<typeof conflictSchema>;
export type SyncEvent = z.output<typeof eventSchema>;
export type EventsAnswer = z.output<typeof eventsAnswerSchema>;
