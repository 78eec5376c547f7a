import { formatTimeSeconds } from '../format';
import type { Leitura } from '../../console.answers';

const DOOR: Record<string, string> = { api: 'API', pista: 'Catraca', console: 'Console' };

export function RecentScans({ leituras }: { leituras: Leitura[] }) {
  return (
    <section class="card" aria-labelledby="recent-title">
      <h2 id="recent-title">Últimas leituras</h2>
      {leituras.length === 0 ? (
        <p class="hint">Nenhuma leitura ainda hoje.</p>
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Hora</th>
                <th scope="col">Onde</th>
                <th scope="col">Código</th>
                <th scope="col">Resultado</th>
              </tr>
            </thead>
            <tbody>
              {leituras.map((l, i) => (
                <tr key={`${l.em}-${l.codigo}-${i}`} class={l.resultado === 'liberado' ? 'row-ok' : 'row-bad'}>
                  <td data-label="Hora">{formatTimeSeconds(l.em)}</td>
                  <td data-label="Onde">
                    {DOOR[l.porta] ?? l.porta} {l.terminal ?? ''}
                  </td>
                  <td class="mono" data-label="Código">
                    {l.codigo}
                  </td>
                  <td data-label="Resultado">
                    <strong>{l.titulo}</strong>
                    {l.resultado !== 'liberado' && l.mensagem ? ` · ${l.mensagem}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
