import { api } from '../api';
import { formatAge, formatDateTime } from '../format';
import { useLiveEvent } from '../live';
import { ErrorNote } from '../ui/ErrorNote';
import type { PainelSite } from '../../console.answers';
import { useLoad } from '../use-load';
import { useNow } from '../use-now';

const n = (v: number | null) => (v === null ? '—' : String(v));

function ModeLine({ s }: { s: PainelSite }) {
  if (s.modo === 'site') return <span class="pill pill-ok">NO SITE: decidindo com as outras entradas</span>;
  if (s.modo === 'local')
    return (
      <>
        <span class="pill pill-bad">MODO LOCAL</span> {s.motivo ?? 'sem o hub'}, desde {formatDateTime(s.desde)}
      </>
    );
  return <span class="pill pill-neutral">Sem site: esta caixa decide sozinha</span>;
}

function Boxes({ s, now }: { s: PainelSite; now: number }) {
  return (
    <div class="table-wrap">
      <table class="stack">
        <caption>Caixas do site</caption>
        <thead>
          <tr>
            <th scope="col">Caixa</th>
            <th scope="col">Visto</th>
            <th scope="col">Versão</th>
            <th scope="col">Sequência aplicada</th>
            <th scope="col">Atraso</th>
            <th scope="col">A publicar</th>
          </tr>
        </thead>
        <tbody>
          {s.caixas.map((c) => (
            <tr key={c.caixa} data-caixa={c.caixa}>
              <td data-label="Caixa">
                {c.caixa}
                {c.esta_caixa ? ' (esta caixa)' : ''}
              </td>
              <td data-label="Visto" title={formatDateTime(c.visto_em)}>
                {formatAge(c.visto_em, now)}
              </td>
              <td data-label="Versão">{c.versao ?? '—'}</td>
              <td data-label="Sequência aplicada">{n(c.sequencia_aplicada)}</td>
              <td data-label="Atraso">{n(c.atraso)}</td>
              <td data-label="A publicar">{n(c.pendentes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The supervisor's site panel: mode, hub, boxes, lag, conflicts, rejected messages, the cloud-key alarm. */
export function SiteView() {
  const panel = useLoad(() => api<PainelSite>('GET', '/api/console/site'), []);
  useLiveEvent<PainelSite>('site', (p) => {
    if (p) panel.setData(() => p);
  });
  const now = useNow(10_000);
  const s = panel.data;
  const rejected = s?.rejeitadas.reduce((t, r) => t + r.total, 0) ?? 0;
  return (
    <section class="page" aria-labelledby="site-title">
      <h1 id="site-title">Site</h1>
      <ErrorNote error={panel.error} />
      {s?.alarme_chave && (
        <div class="alarm alarm-open card" role="alert">
          <p>
            <strong>Chave da nuvem repetida</strong> ({s.chave_nuvem_repetida.join(', ')}): esta caixa não está pronta.
          </p>
          <p>
            {s.alarme_chave[0]!.toUpperCase()}
            {s.alarme_chave.slice(1)}.
          </p>
        </div>
      )}
      {s && s.modo === 'desligado' && (
        <p class="card notice">Esta caixa não faz parte de um site: decide sozinha, como caixa única.</p>
      )}
      {s && s.modo !== 'desligado' && (
        <>
          <div class="card">
            <p class="sync-state">
              <ModeLine s={s} />
            </p>
            <dl class="fields stats">
              <div>
                <dt>Esta caixa</dt>
                <dd>{s.caixa ?? '—'}</dd>
              </div>
              <div>
                <dt>Hub</dt>
                <dd>
                  {s.hub.enderecos.join(', ') || '—'} ({s.hub.conectado ? 'conectado' : 'sem conexão'})
                </dd>
              </div>
              <div>
                <dt>Atraso (mensagens do hub a aplicar)</dt>
                <dd>{s.atraso}</dd>
              </div>
              <div>
                <dt>Movimentos a publicar</dt>
                <dd>{s.pendentes}</dd>
              </div>
              <div>
                <dt>Estacionados (QR ainda desconhecido)</dt>
                <dd>{s.estacionadas}</dd>
              </div>
              <div>
                <dt>Decisões sem o site hoje</dt>
                <dd>{s.decisoes_sem_site_hoje}</dd>
              </div>
              <div>
                <dt>Conflitos no site</dt>
                <dd>{s.conflitos}</dd>
              </div>
            </dl>
          </div>
          <section class="card" aria-labelledby="site-boxes">
            <h2 id="site-boxes">Caixas</h2>
            <Boxes s={s} now={now} />
          </section>
          <section class="card" aria-labelledby="site-rejected">
            <h2 id="site-rejected">Mensagens do hub recusadas</h2>
            {rejected === 0 ? (
              <p>Nenhuma mensagem recusada.</p>
            ) : (
              <ul class="rejected">
                {s.rejeitadas
                  .filter((r) => r.total > 0)
                  .map((r) => (
                    <li key={r.motivo} data-motivo={r.motivo}>
                      {r.descricao}: <strong>{r.total}</strong>
                    </li>
                  ))}
              </ul>
            )}
          </section>
        </>
      )}
    </section>
  );
}
