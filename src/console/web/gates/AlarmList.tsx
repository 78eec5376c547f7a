import { formatDateTime, formatTime } from '../format';
import type { Alarme } from '../../console.answers';

const KIND_LABEL: Record<string, string> = {
  carona: 'Carona (passagem sem liberação)',
  incendio_inicio: 'Alarme de incêndio',
  dispositivo_offline: 'Dispositivo desconectado',
};

function detail(a: Alarme): string {
  const d = a.detalhes ?? {};
  const device =
    d.dispositivo === 'leitor'
      ? 'leitor'
      : d.dispositivo === 'rele'
        ? 'relé'
        : typeof d.dispositivo === 'string'
          ? d.dispositivo
          : null;
  return device ? ` · ${device}` : '';
}

export function AlarmList(props: {
  alarmes: Alarme[];
  busy: number | null;
  errors: Record<number, string>;
  onAck: (id: number) => void;
}) {
  const open = props.alarmes.filter((a) => !a.reconhecido_em);
  const done = props.alarmes.filter((a) => a.reconhecido_em);
  return (
    <section class="card alarms" aria-labelledby="alarms-title">
      <h2 id="alarms-title">
        Alarmes{' '}
        {open.length > 0 && (
          <span class="pill pill-bad">
            {open.length} pendente{open.length > 1 ? 's' : ''}
          </span>
        )}
      </h2>
      {open.length === 0 && <p class="hint">Nenhum alarme pendente.</p>}
      <ul class="alarm-list">
        {open.map((a) => (
          <li key={a.id} class={`alarm alarm-open alarm-${a.tipo}`} data-alarme={a.id}>
            <p>
              <strong>{KIND_LABEL[a.tipo] ?? a.tipo}</strong> · pista {a.pista}
              {detail(a)} · {formatTime(a.em)}
            </p>
            <button
              type="button"
              class="btn btn-primary"
              disabled={props.busy === a.id}
              onClick={() => props.onAck(a.id)}
              aria-label={`Reconhecer alarme: ${KIND_LABEL[a.tipo] ?? a.tipo} na pista ${a.pista}`}
            >
              Reconhecer
            </button>
            {props.errors[a.id] && (
              <p class="form-error" role="alert">
                {props.errors[a.id]}
              </p>
            )}
          </li>
        ))}
      </ul>
      {done.length > 0 && (
        <>
          <h3>Reconhecidos</h3>
          <ul class="alarm-list">
            {done.map((a) => (
              <li key={a.id} class="alarm alarm-done" data-alarme={a.id}>
                {KIND_LABEL[a.tipo] ?? a.tipo} · pista {a.pista}
                {detail(a)} · {formatTime(a.em)} — reconhecido por {a.reconhecido_por ?? '—'} em{' '}
                {formatDateTime(a.reconhecido_em)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
