import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/open.js';
import { all, first, inList, run } from '../db/query.js';
import type { ClientsTable } from '../db/schema.js';
import type { ClienteRecord } from './client.schemas.js';

export type ClientRow = Selectable<ClientsTable> & { sincronizado_em: string | null };

/**
 * Inserts or updates a client keyed by (tenant, cloud id). Sync marks are kept: 3.4 unsynchronises
 * only vouchers of cancelled orders. Must run inside a transaction.
 */
export function upsertClient(
  db: Db,
  tenantId: number,
  c: ClienteRecord,
  nowIso: string,
): { clientPk: number; created: boolean } {
  const k = db.kysely;
  const existing = first(
    db,
    k.selectFrom('clients').select('id').where('tenant_id', '=', tenantId).where('cliente_id', '=', c.id),
  );
  const columns = {
    nome: c.nome,
    sobrenome: c.sobrenome,
    email: c.email,
    cpf: c.cpf,
    data_nascimento: c.data_nascimento === '' ? null : c.data_nascimento,
    telefone: c.telefone,
    whatsapp: c.whatsapp,
    endereco: JSON.stringify(c.endereco),
    ultimo_login: c.ultimo_login,
    updated_at: nowIso,
  };
  if (existing) {
    run(
      db,
      k
        .updateTable('clients')
        .set({ ...columns, ...(c.created_at ? { created_at: c.created_at } : {}) })
        .where('id', '=', existing.id),
    );
    return { clientPk: existing.id, created: false };
  }
  const res = run(
    db,
    k
      .insertInto('clients')
      .values({ ...columns, tenant_id: tenantId, cliente_id: c.id, created_at: c.created_at ?? nowIso }),
  );
  return { clientPk: Number(res.lastInsertRowid), created: true };
}

export type ClientOrderBy = 'created_at' | 'nome' | 'email' | 'ultimo_login';

export interface ClientQuery {
  tenantId: number;
  apiKeyId: number;
  /** Synchronised for this key (true), not yet (false), or either (undefined). */
  sincronizado?: boolean | undefined;
  /** Lower-case fragment of the e-mail. */
  email?: string | undefined;
  cpf?: string | undefined;
  /** UTC ISO instant: created on or after it. */
  createdFrom?: string | undefined;
  orderBy: ClientOrderBy;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** One page of the tenant's clients with this key's mark; the row id breaks ties so pages are stable. */
export function listClients(db: Db, q: ClientQuery): ClientRow[] {
  let query = db.kysely
    .selectFrom('clients')
    .leftJoin('client_marks', (j) =>
      j.onRef('client_marks.client_pk', '=', 'clients.id').on('client_marks.api_key_id', '=', q.apiKeyId),
    )
    .selectAll('clients')
    .select('client_marks.sincronizado_em')
    .where('clients.tenant_id', '=', q.tenantId);
  if (q.sincronizado === true) query = query.where('client_marks.sincronizado_em', 'is not', null);
  if (q.sincronizado === false) query = query.where('client_marks.sincronizado_em', 'is', null);
  // instr, not LIKE: '_' and '%' are ordinary characters in e-mail addresses.
  if (q.email) query = query.where(sql<boolean>`instr(lower(clients.email), ${q.email}) > 0`);
  if (q.cpf) query = query.where('clients.cpf', '=', q.cpf);
  if (q.createdFrom) query = query.where('clients.created_at', '>=', q.createdFrom);

  const dir = q.order;
  switch (q.orderBy) {
    case 'created_at':
      query = query.orderBy('clients.created_at', dir);
      break;
    case 'nome':
      query = query.orderBy(sql`clients.nome collate nocase`, dir).orderBy(sql`clients.sobrenome collate nocase`, dir);
      break;
    case 'email':
      query = query.orderBy(sql`clients.email collate nocase`, dir);
      break;
    case 'ultimo_login':
      // Clients who never logged in go last in both directions.
      query = query.orderBy(sql`clients.ultimo_login is null`).orderBy('clients.ultimo_login', dir);
      break;
  }
  return all(db, query.orderBy('clients.id', dir).limit(q.limit).offset(q.offset));
}

/** Marks clients as synchronised for one key; a key's first marking time is kept. Call in a transaction. */
export function markClients(db: Db, apiKeyId: number, clientPks: readonly number[], nowIso: string): void {
  const k = db.kysely;
  if (clientPks.length === 0) return;
  run(
    db,
    k
      .insertInto('client_marks')
      .orIgnore()
      .columns(['api_key_id', 'client_pk', 'sincronizado_em'])
      .expression(
        k
          .selectFrom('clients')
          .select([sql<number>`${apiKeyId}`.as('k'), 'id', sql<string>`${nowIso}`.as('at')])
          .where('id', 'in', inList(clientPks)),
      ),
  );
}
