import { useState } from 'preact/hooks';
import { formatDateTime } from '../format';
import type { Pedido, PessoaConsole } from '../../console.answers';
import type { Feedback, Target } from './actions';
import { FeedbackNote } from './FeedbackNote';
import { ReversalForm } from './ReversalForm';

interface Props {
  qr: string;
  dados: Pedido['lotes'][number]['dados'][number];
  pessoa: PessoaConsole | undefined;
  canReverse: boolean;
  busy: string | null;
  feedback: Feedback | undefined;
  onCheckin: (key: string, target: Target) => Promise<boolean>;
  onReverse: (key: string, target: Target, motivo: string) => Promise<boolean>;
}

function stateOf(p: PessoaConsole | undefined) {
  if (p?.checkin_em)
    return {
      cls: 'in',
      text: `Entrou em ${formatDateTime(p.checkin_em)} · terminal ${p.checkin_terminal ?? '—'}${p.checkin_operador ? ` · ${p.checkin_operador}` : ''}`,
    };
  if (p?.estornado_em)
    return {
      cls: 'reversed',
      text: `Check-in estornado em ${formatDateTime(p.estornado_em)} · terminal ${p.estorno_terminal ?? '—'}${p.estorno_operador ? ` · ${p.estorno_operador}` : ''}`,
    };
  return { cls: 'out', text: 'Ainda não entrou' };
}

export function PersonCard(props: Props) {
  const { qr, pessoa } = props;
  const [reversing, setReversing] = useState(false);
  const key = `pessoa:${qr}`;
  const name = String(pessoa?.nome ?? props.dados.Nome ?? props.dados.nome ?? qr);
  const fields = Object.entries(props.dados).filter(
    ([k, v]) => k !== 'qr_code' && v !== '' && v !== null && v !== name,
  );
  const state = stateOf(pessoa);
  const headingId = `pessoa-${qr.replace(/[^A-Za-z0-9_-]/g, '_')}`;

  return (
    <li class={`person person-${state.cls}`} aria-labelledby={headingId} data-qr={qr}>
      <h3 id={headingId}>{name}</h3>
      <p class="mono">QR {qr}</p>
      {fields.length > 0 && (
        <dl class="fields">
          {fields.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      <p class={`checkin-state state-${state.cls}`}>{state.text}</p>
      <div class="row actions">
        {!pessoa?.checkin_em && (
          <button
            type="button"
            class="btn btn-primary"
            disabled={props.busy !== null}
            onClick={() => void props.onCheckin(key, { qr_code: qr })}
            aria-label={`Fazer check-in de ${name}`}
          >
            Fazer check-in
          </button>
        )}
        {props.canReverse && pessoa?.checkin_em && !reversing && (
          <button
            type="button"
            class="btn btn-danger"
            onClick={() => setReversing(true)}
            aria-label={`Estornar check-in de ${name}`}
          >
            Estornar
          </button>
        )}
      </div>
      {reversing && (
        <ReversalForm
          id={headingId}
          what={name}
          busy={props.busy !== null}
          onConfirm={(m) => props.onReverse(key, { qr_code: qr }, m)}
          onCancel={() => setReversing(false)}
        />
      )}
      <FeedbackNote feedback={props.feedback} />
    </li>
  );
}
