import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { pageLimit, pageOffset, queryBoolean, sortOrder } from '../http/validation.js';
import { dateString } from '../lib/wire.js';
import type { ServedCliente } from './clients.answers.js';
import { clientsDocs } from './clients.docs.js';
import { listClients, markClients, type ClientRow } from './clients.repo.js';

// Decisions on what the spec leaves open: docs/api-listings.md.
const PAGE_MAX = 500;
const PAGE_DEFAULT = 100;

const listQuery = z.object({
  sincronizado: queryBoolean
    .optional()
    .describe('false: ainda não entregues a esta chave; true: já entregues; ausente: todos'),
  marcar_sincronizado: queryBoolean
    .default(true)
    .describe('Marca os clientes devolvidos para esta chave (padrão true); false só lê'),
  email: z.string().trim().max(254, 'longo demais').optional().describe('Trecho do e-mail, sem diferenciar maiúsculas'),
  // Punctuation of a formatted CPF is dropped; anything else that is not a digit is a mistake.
  cpf: z
    .string()
    .transform((s) => s.replace(/[.\-/\s]/g, ''))
    .pipe(z.string().regex(/^\d*$/, 'use apenas dígitos').max(14, 'longo demais'))
    .optional()
    .describe('CPF exato, só dígitos (pontuação ignorada)'),
  desde: dateString.optional().describe('Clientes criados a partir deste dia (YYYY-MM-DD, fuso do parque)'),
  limit: pageLimit(PAGE_MAX, PAGE_DEFAULT).describe(
    `Clientes por página: padrão ${PAGE_DEFAULT}, no máximo ${PAGE_MAX}`,
  ),
  offset: pageOffset.describe('Clientes a pular'),
  order_by: z
    .enum(['created_at', 'nome', 'email', 'ultimo_login'], { message: 'use created_at, nome, email ou ultimo_login' })
    .default('created_at'),
  order: sortOrder.default('asc'),
});
type ListQuery = z.output<typeof listQuery>;

const parseEndereco = (json: string | null) =>
  json === null
    ? { cep: '', rua: '', numero: '', complemento: '', bairro: '', cidade: '', estado: '' }
    : (JSON.parse(json) as ServedCliente['endereco']);

/** The client record of the listing (2.9), with this key's synchronisation state. */
export function clientPayload(c: ClientRow): ServedCliente {
  return {
    id: c.cliente_id,
    nome: c.nome,
    sobrenome: c.sobrenome,
    email: c.email,
    cpf: c.cpf,
    data_nascimento: c.data_nascimento ?? '',
    telefone: c.telefone,
    whatsapp: c.whatsapp,
    endereco: parseEndereco(c.endereco),
    created_at: c.created_at,
    ultimo_login: c.ultimo_login,
    sincronizado: c.sincronizado_em !== null,
    sincronizado_em: c.sincronizado_em,
  };
}

/** Why a page is empty, in the caller's terms (the vouchers listing does the same, 4.6 rule 4). */
function emptyMessage(q: ListQuery): string {
  const filtered = Boolean(q.email || q.cpf || q.desde);
  const withFilters = filtered ? ' com os filtros informados' : '';
  if (q.offset > 0) return `Nenhum cliente a partir do offset ${q.offset}${withFilters}.`;
  if (q.sincronizado === false) return `Nenhum cliente pendente de sincronização para esta chave de API${withFilters}.`;
  if (q.sincronizado === true) return `Nenhum cliente já sincronizado por esta chave de API${withFilters}.`;
  return filtered ? 'Nenhum cliente encontrado com os filtros informados.' : 'Nenhum cliente cadastrado.';
}

export const clientRoutes = (deps: { db: Db; clock: Clock; auth: Auth }): RouteRegistrar => {
  const { db, clock } = deps;
  const { onRequest, callerOf } = guard((request) => deps.auth.apiKey(request, ['clientes:read']));

  return (app) => {
    app.get(
      '/api-clientes',
      {
        onRequest,
        schema: {
          tags: ['clientes'],
          summary: 'Clientes com sincronização por chave',
          security: [{ apiKey: [] }],
          querystring: listQuery,
          docs: clientsDocs,
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const q = request.query;
        const read = () =>
          listClients(db, {
            tenantId: caller.tenantId,
            apiKeyId: caller.apiKeyId,
            sincronizado: q.sincronizado,
            email: q.email?.toLowerCase(),
            cpf: q.cpf,
            createdFrom: q.desde ? clock.startOfLocalDate(q.desde).toISOString() : undefined,
            orderBy: q.order_by,
            order: q.order,
            limit: q.limit,
            offset: q.offset,
          });
        // Read and mark in one write transaction, so the page marked is exactly the page returned.
        const rows = q.marcar_sincronizado
          ? db.sqlite
              .transaction(() => {
                const page = read();
                const nowIso = clock.nowIso();
                const unmarked = page.filter((r) => r.sincronizado_em === null);
                markClients(
                  db,
                  caller.apiKeyId,
                  unmarked.map((r) => r.id),
                  nowIso,
                );
                return page.map((r) => (r.sincronizado_em === null ? { ...r, sincronizado_em: nowIso } : r));
              })
              .immediate()
          : read();
        const clientes = rows.map(clientPayload);
        return {
          success: true,
          data: { clientes, total: clientes.length, ...(clientes.length === 0 ? { mensagem: emptyMessage(q) } : {}) },
        };
      },
    );
  };
};
