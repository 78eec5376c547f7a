import { APP_VERSION, type Engine, type EngineState } from './engine';

export function About({ engine, s }: { engine: Engine; s: EngineState }) {
  return (
    <main class="screen">
      <h1>Sobre</h1>
      <dl class="facts">
        <dt>Versão</dt>
        <dd>{APP_VERSION}</dd>
        <dt>Aparelho</dt>
        <dd>{s.device?.nome ?? '—'}</dd>
        <dt>Box</dt>
        <dd>{s.device?.origem ?? location.origin}</dd>
        <dt>Dados de</dt>
        <dd>
          {s.dados
            ? `${s.dados.data_local} (gerados ${new Date(s.dados.gerado_em).toLocaleTimeString('pt-BR')})`
            : 'nenhum'}
        </dd>
        <dt>Operador</dt>
        <dd>{s.operador ?? '—'}</dd>
        <dt>Na fila</dt>
        <dd>{s.fila}</dd>
      </dl>
      <p class="note">
        A fila fica guardada neste navegador, para este endereço ({location.origin}). Abrir o app por outro endereço do
        box (outro nome ou IP) mostra uma fila vazia: a fila continua aqui e só é enviada quando o app é aberto por este
        endereço. Antes de trocar de endereço, de navegador ou de limpar os dados, espere a fila chegar a zero.
      </p>
      <button class="secondary" onClick={() => void engine.endShift()}>
        Encerrar turno
      </button>
    </main>
  );
}
