import { useState } from 'preact/hooks';
import { api } from '../api';
import { formatAge, formatDateTime } from '../format';
import { useLiveEvent } from '../live';
import { ErrorNote } from '../ui/ErrorNote';
import type { Conflito, SyncEstado } from '../../console.answers';
import { useLoad } from '../use-load';
import { useNow } from '../use-now';

const KINDS: [string, string][] = [
  ['', 'Todos'],
  ['ja_utilizado_na_nuvem', 'Já utilizado na nuvem'],
  ['fora_do_prazo', 'Fora do prazo'],
  ['cancelado_na_nuvem', 'Cancelado na nuvem'],
  ['outro', 'Outro'],
  ['duplo_no_site', 'Duplo no site'],
];
const kindLabel = (k: string | null) => KINDS.find(([v]) => v === k)?.[1] ?? k ?? '—';

export function SyncView() {
  const sync = useLoad(() => api<SyncEstado>('GET', '/api/console/sync'), []);
  const [kind, setKind] = useState('');
  const conflicts = useLoad(
    () => api<{ conflitos: Conflito[]; total: number }>('GET', `/api/console/conflitos${kind ? `?tipo=${kind}` : ''}`),
    [kind],
  );
  const now = useNow(10_000);
  useLiveEvent<SyncEstado>('sync', (s) => {
    if (s) sync.setData(() => s);
    conflicts.reload();
  });

  const s = sync.data;
  const csv = `/api/console/conflitos?formato=csv${kind ? `&tipo=${kind}` : ''}`;
  const rows = conflicts.data?.conflitos ?? [];
  return (
    <section class="page" aria-labelledby="sync-title">
      <h1 id="sync-title">Sincronização com a nuvem</h1>
      <ErrorNote error={sync.error} />
      {s && <SyncStateCard s={s} now={now} />}
      <section class="card" aria-labelledby="conflicts-title">
        <h2 id="conflicts-title">Conflitos</h2>
        <p class="hint">Eventos desta caixa que a nuvem não aceitou.</p>
        <div class="row">
          <label for="conflict-kind">Tipo</label>
          <select id="conflict-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {KINDS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
          <a class="btn" href={csv} download="conflitos.csv">
            Baixar CSV
          </a>
        </div>
        <ErrorNote error={conflicts.error} />
        {conflicts.data && rows.length === 0 && <p>Nenhum conflito{kind ? ` do tipo “${kindLabel(kind)}”` : ''}.</p>}
        {rows.length > 0 && (
          <div class="table-wrap">
            <table class="stack">
              <caption class="visually-hidden">Conflitos com a nuvem</caption>
              <thead>
                <tr>
                  <th scope="col">Quando</th>
                  <th scope="col">Ação</th>
                  <th scope="col">Código</th>
                  <th scope="col">Pedido</th>
                  <th scope="col">Terminal</th>
                  <th scope="col">Tipo</th>
                  <th scope="col">Nuvem disse</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.evento_id}>
                    <td data-label="Quando">{formatDateTime(c.ocorrido_em)}</td>
                    <td data-label="Ação">{c.acao}</td>
                    <td class="mono" data-label="Código">
                      {c.codigo ?? '—'}
                    </td>
                    <td data-label="Pedido">{c.numero_pedido ?? '—'}</td>
                    <td data-label="Terminal">
                      {c.terminal ?? '—'}
                      {c.operador ? ` · ${c.operador}` : ''}
                    </td>
                    <td data-label="Tipo">{kindLabel(c.tipo)}</td>
                    <td data-label="Nuvem disse">{c.mensagem_nuvem ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {conflicts.data && conflicts.data.total > rows.length && (
          <p class="hint">
            Mostrando {rows.length} de {conflicts.data.total}. O CSV traz todos.
          </p>
        )}
      </section>
      {s?.certificado && <CertificateCard certificado={s.certificado} />}
    </section>
  );
}

/** The link, the last pull and push, what waits to be sent (and what of it waits for another box) and conflicts. */
function SyncStateCard({ s, now }: { s: SyncEstado; now: number }) {
  const held = s.aguardando_outra_caixa;
  return (
    <div class="card">
      <p class="sync-state">
        {!s.configurado ? (
          <span class="pill pill-neutral">Nuvem não configurada</span>
        ) : s.online ? (
          <span class="pill pill-ok">ONLINE com a nuvem</span>
        ) : (
          <span class="pill pill-bad">OFFLINE: sem contato com a nuvem</span>
        )}
      </p>
      <dl class="fields stats">
        <div>
          <dt>Último recebimento (pull)</dt>
          <dd title={formatDateTime(s.ultimo_pull_em)}>{formatAge(s.ultimo_pull_em, now)}</dd>
        </div>
        <div>
          <dt>Último envio (push)</dt>
          <dd title={formatDateTime(s.ultimo_push_em)}>{formatAge(s.ultimo_push_em, now)}</dd>
        </div>
        <div>
          <dt>Eventos aguardando envio</dt>
          <dd>{s.eventos_pendentes}</dd>
        </div>
        {held.eventos > 0 && (
          <div>
            <dt>Retidos por outra caixa</dt>
            <dd id="sync-held">
              {held.eventos}, enviados até {formatDateTime(held.ate)}
            </dd>
          </div>
        )}
        <div>
          <dt>Conflitos</dt>
          <dd>{s.conflitos_total}</dd>
        </div>
      </dl>
      {held.eventos > 0 && (
        <p class="hint">
          Retidos: esperam a nuvem confirmar um movimento anterior do mesmo ingresso feito em outra caixa do site; vão
          assim que ela confirmar, ou no horário indicado.
        </p>
      )}
    </div>
  );
}

/** What the IT lead compares with the /ca page on a handheld before installing the CA (docs/handheld.md). */
function CertificateCard({ certificado }: { certificado: NonNullable<SyncEstado['certificado']> }) {
  return (
    <section class="card" aria-labelledby="cert-title">
      <h2 id="cert-title">Certificado da caixa (HTTPS)</h2>
      <dl class="fields">
        <div>
          <dt>Impressão digital SHA-256 da CA do parque</dt>
          <dd class="mono" id="ca-sha256">
            {certificado.ca_sha256}
          </dd>
        </div>
        <div>
          <dt>Certificado da caixa válido até</dt>
          <dd>{formatDateTime(certificado.expira_em)}</dd>
        </div>
      </dl>
      <p class="hint">Confira esta impressão digital com a da página /ca no aparelho antes de instalar a CA.</p>
    </section>
  );
}
