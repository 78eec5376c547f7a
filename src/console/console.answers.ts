import { z } from 'zod';
import { fireAlarmSchema, laneSchema } from '../gate/gates.answers.js';
import { listedPedidoSchema } from '../orders/order.answers.js';
import { siteBoxSchema, SITE_MODES, SITE_REJECT_REASONS } from '../site/site.answers.js';
import { conflictsAnswerSchema } from '../sync/sync.answers.js';

// The console's answers (docs/console.md): the one description of what the console's routes and views
// build, read by their types, the routes' response schemas, /docs and, type-only, the browser code
// (src/console/web): nothing here may import more than zod and other answers files (no Node types, not
// errors.ts), so the browser's type check can follow the imports.

const count = z.number().int().min(0);
const ok = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), data });
const papel = z.enum(['atendente', 'supervisor']);

export const sessaoSchema = z.strictObject({
  operador: z.strictObject({ id: z.number().int(), nome: z.string(), papel }),
  tenant: z.strictObject({ slug: z.string(), nome: z.string() }),
  estacao: z.string(),
  csrf: z.string().describe('Envie em X-CSRF-Token em todo método que não seja GET'),
  expira_apos_min: z.number().int().describe('Minutos sem uso até a sessão terminar'),
});

export const leituraSchema = z.strictObject({
  resultado: z.enum(['liberado', 'recusado']),
  acao: z.enum(['checkin', 'estorno', 'movimento']),
  codigo: z.string(),
  em: z.string(),
  porta: z.string().describe('api, pista ou console'),
  terminal: z.string().nullable(),
  operador: z.string().nullable(),
  titulo: z.string().describe('Em letras grandes: LIBERADO, JÁ UTILIZADO, FORA DA DATA...'),
  mensagem: z.string().describe('A frase para a equipe'),
  pessoas: z.array(z.strictObject({ nome: z.string(), qr_code: z.string() })),
  numero_pedido: z.string().nullable(),
  lote: z.strictObject({ nome_ingresso: z.string(), nome_lote: z.string(), data_uso: z.string() }).nullable(),
  erro: z
    .strictObject({
      code: z.string().describe('O código do catálogo de erros'),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
});

export const pessoaConsoleSchema = z.strictObject({
  qr_code: z.string(),
  nome: z.string(),
  lote: z.string(),
  data_uso: z.string(),
  checkin_em: z.string().nullable(),
  checkin_terminal: z.string().nullable(),
  checkin_operador: z.string().nullable(),
  estornado_em: z.string().nullable(),
  estorno_terminal: z.string().nullable(),
  estorno_operador: z.string().nullable(),
});
export const pedidoViewSchema = z.strictObject({
  pedido: listedPedidoSchema,
  pessoas: z.array(pessoaConsoleSchema),
  combo_qr_code: z.string().nullable().describe('O QR de grupo, para pedidos que vieram de um combo'),
});

export const alarmeSchema = z.strictObject({
  id: z.number().int(),
  tipo: z.string(),
  pista: z.string(),
  em: z.string(),
  detalhes: z.record(z.string(), z.unknown()).nullable(),
  reconhecido_por: z.string().nullable(),
  reconhecido_em: z.string().nullable(),
});
const operatorSchema = z.strictObject({ id: z.number().int(), nome: z.string(), papel });
const operadorSchema = operatorSchema.extend({
  ativo: z.boolean(),
  bloqueado_ate: z.string().nullable(),
  criado_em: z.string(),
});

export const resultadoBuscaSchema = z.strictObject({
  numero_pedido: z.string(),
  status: z.string(),
  cliente_nome: z.string(),
  cliente_email: z.string(),
  total_pessoas: count,
  checkins: count,
  data_uso: z.string().nullable(),
  encontrado: z.string(),
});

export const painelPistasSchema = z.strictObject({
  configurado: z.boolean(),
  alarme_incendio: fireAlarmSchema,
  pistas: z.array(laneSchema),
  entradas_hoje: count,
  ultimas_leituras: z.array(leituraSchema),
  alarmes: z.array(alarmeSchema),
});

export const syncEstadoSchema = z.strictObject({
  configurado: z.boolean(),
  online: z.boolean().nullable(),
  ultimo_pull_em: z.string().nullable(),
  ultimo_push_em: z.string().nullable(),
  ultimo_erro: z.string().nullable(),
  eventos_pendentes: count,
  aguardando_outra_caixa: z
    .strictObject({
      eventos: count,
      ate: z.string().nullable().describe('Quando termina a mais longa dessas esperas, no mais tardar'),
    })
    .describe(
      'Dos pendentes, os retidos até a nuvem confirmar um movimento anterior do mesmo ingresso feito em outra caixa do site',
    ),
  conflitos_total: count,
  certificado: z
    .strictObject({
      ca_sha256: z.string().describe('Impressão digital SHA-256 da CA do site: a mesma da página /ca dos aparelhos'),
      expira_em: z.string().describe('Fim da validade do certificado da caixa; a caixa o renova 30 dias antes'),
    })
    .nullable()
    .describe('O HTTPS da caixa com a CA do site (GATE_TLS_DIR, docs/handheld.md); null sem ela'),
});

export const relatorioSchema = z.strictObject({
  data: z.string(),
  total_entradas: count,
  total_recusas: count,
  por_hora: z.array(z.strictObject({ hora: z.number().int().min(0).max(23), terminal: z.string(), entradas: count })),
  recusas: z.array(z.strictObject({ code: z.string(), titulo: z.string(), total: count })),
});

export const modoSiteSchema = z
  .strictObject({
    modo: z.enum(SITE_MODES).describe('site: decide com o hub; local: decide sozinha; desligado: caixa única'),
    motivo: z.string().nullable().describe('Por que decide sozinha, em palavras'),
    desde: z.string().nullable(),
    pendentes: count.describe('Movimentos desta caixa ainda não publicados no hub'),
  })
  .describe('A faixa de modo local, para todos');

export const painelSiteSchema = z.strictObject({
  ...modoSiteSchema.shape,
  caixa: z.string().nullable(),
  hub: z.strictObject({
    enderecos: z.array(z.string()).describe('host:porta, sem usuário nem senha'),
    conectado: z.boolean(),
  }),
  atraso: count,
  estacionadas: count,
  decisoes_sem_site_hoje: count,
  conflitos: count.describe('Conflitos duplo_no_site'),
  rejeitadas: z.array(z.strictObject({ motivo: z.enum(SITE_REJECT_REASONS), descricao: z.string(), total: count })),
  chave_nuvem_repetida: z.array(z.string()),
  alarme_chave: z.string().nullable().describe('O alarme de chave da nuvem repetida, em palavras'),
  caixas: z.array(siteBoxSchema),
});

/** The 200 of each console route, by what it answers. */
export const consoleAnswers = {
  sessao: ok(sessaoSchema),
  saiu: ok(z.strictObject({})),
  leitura: ok(leituraSchema),
  busca: ok(z.strictObject({ resultados: z.array(resultadoBuscaSchema) })),
  pedido: ok(pedidoViewSchema),
  checkin: ok(z.strictObject({ leitura: leituraSchema, pedido: pedidoViewSchema.nullable() })),
  estorno: ok(z.strictObject({ mensagem: z.string(), pedido: pedidoViewSchema.nullable() })),
  pistas: ok(painelPistasSchema),
  alarme: ok(alarmeSchema),
  sync: ok(syncEstadoSchema),
  conflitos: conflictsAnswerSchema,
  operadores: ok(z.strictObject({ operadores: z.array(operadorSchema) })),
  operadorCriado: ok(
    z.strictObject({
      operador: operatorSchema,
      pin: z.string().nullable().describe('PIN de uso único, mostrado só nesta resposta'),
    }),
  ),
  operadorDesativado: ok(z.strictObject({ id: z.number().int(), ativo: z.literal(false) })),
  relatorio: ok(relatorioSchema),
  modoSite: ok(modoSiteSchema),
  site: ok(painelSiteSchema),
};

export type Papel = z.output<typeof papel>;
export type Sessao = z.output<typeof sessaoSchema>;
export type Leitura = z.output<typeof leituraSchema>;
export type ResultadoBusca = z.output<typeof resultadoBuscaSchema>;
export type PedidoConsole = z.output<typeof pedidoViewSchema>;
export type Pedido = PedidoConsole['pedido'];
export type PessoaConsole = z.output<typeof pessoaConsoleSchema>;
export type Alarme = z.output<typeof alarmeSchema>;
export type PainelPistas = z.output<typeof painelPistasSchema>;
export type SyncEstado = z.output<typeof syncEstadoSchema>;
export type Operador = z.output<typeof operadorSchema>;
export type Relatorio = z.output<typeof relatorioSchema>;
export type ModoSite = z.output<typeof modoSiteSchema>;
export type PainelSite = z.output<typeof painelSiteSchema>;
export type { Conflict as Conflito } from '../sync/sync.answers.js';
export type { FireAlarm as AlarmeIncendio, Lane as Pista } from '../gate/gates.answers.js';
export type { ApiErrorBody } from '../http/error-body.js';
