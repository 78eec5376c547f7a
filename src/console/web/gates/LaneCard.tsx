import { formatTime } from '../format';
import type { Pista } from '../../console.answers';

const RESULT_LABEL: Record<string, string> = {
  liberada: 'liberada',
  negada: 'negada',
  passagem: 'passagem',
  nao_passou: 'não passou',
  carona: 'carona',
  incendio_inicio: 'incêndio',
  incendio_fim: 'fim do incêndio',
  dispositivo_offline: 'dispositivo desconectado',
  dispositivo_online: 'dispositivo reconectado',
};

export const laneOnline = (p: Pista) => p.rele.online && p.leitores.every((l) => l.conectado);

export function LaneCard({ pista, entries }: { pista: Pista; entries: number | null }) {
  const online = laneOnline(pista);
  const id = `pista-${pista.nome.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <li class={`card lane ${online ? 'lane-online' : 'lane-offline'}`} aria-labelledby={id} data-pista={pista.nome}>
      <div class="lane-head">
        <h3 id={id}>{pista.nome}</h3>
        <span class={`pill ${online ? 'pill-ok' : 'pill-bad'}`}>{online ? 'ONLINE' : 'OFFLINE'}</span>
      </div>
      <p class="hint">
        {pista.direcao === 'saida' ? 'Saída' : 'Entrada'}
        {pista.area ? ` · ${pista.area}` : ''}
      </p>
      <ul class="devices">
        <li class={pista.rele.online ? 'ok' : 'bad'}>
          Relé ({pista.rele.driver}):{' '}
          {pista.rele.online ? 'conectado' : `desconectado${pista.rele.problema ? ` (${pista.rele.problema})` : ''}`}
          {pista.rele.passagem_livre ? ' · passagem livre' : ''}
        </li>
        {pista.leitores.map((l, i) => (
          <li key={i} class={l.conectado ? 'ok' : 'bad'}>
            Leitor{pista.leitores.length > 1 ? ` ${i + 1}` : ''}:{' '}
            {l.conectado ? 'conectado' : `desconectado${l.desde ? ` desde ${formatTime(l.desde)}` : ''}`}
          </li>
        ))}
      </ul>
      <dl class="fields counters">
        {entries !== null && (
          <div>
            <dt>Entradas hoje</dt>
            <dd>{entries}</dd>
          </div>
        )}
        {pista.contadores && (
          <>
            <div>
              <dt>Liberadas</dt>
              <dd>{pista.contadores.liberadas ?? 0}</dd>
            </div>
            <div>
              <dt>Negadas</dt>
              <dd>{pista.contadores.negadas ?? 0}</dd>
            </div>
            <div>
              <dt>Caronas</dt>
              <dd>{pista.contadores.caronas ?? 0}</dd>
            </div>
          </>
        )}
      </dl>
      <p class="hint">
        Último evento:{' '}
        {pista.ultimo_resultado
          ? `${RESULT_LABEL[pista.ultimo_resultado.tipo] ?? pista.ultimo_resultado.tipo}${pista.ultimo_resultado.codigo ? ` (${pista.ultimo_resultado.codigo})` : ''} às ${formatTime(pista.ultimo_resultado.em)}`
          : 'nenhum'}
      </p>
    </li>
  );
}
