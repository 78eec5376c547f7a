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
          <table>
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
                  <td>{formatTimeSeconds(l.em)}</td>
                  <td>
                    {DOOR[l.porta] ?? l.porta} {l.terminal ?? ''}
                  </td>
                  <td class="mono">{l.codigo}</td>
                  <td>
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
