import { useEffect, useRef, useState } from 'preact/hooks';

/** Asks for the reason of a reversal (kept in the event log) before sending it. */
export function ReversalForm(props: {
  id: string;
  what: string;
  busy: boolean;
  onConfirm: (motivo: string) => Promise<boolean>;
  onCancel: () => void;
}) {
  const [motivo, setMotivo] = useState('');
  const [invalid, setInvalid] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const m = motivo.trim();
    if (m.length < 3) {
      setInvalid(true);
      field.current?.focus();
      return;
    }
    setInvalid(false);
    if (await props.onConfirm(m)) props.onCancel();
  };

  return (
    <form class="reversal" onSubmit={submit} aria-label={`Estornar ${props.what}`}>
      <label for={`${props.id}-motivo`}>Motivo do estorno de {props.what}</label>
      <textarea
        id={`${props.id}-motivo`}
        ref={field}
        rows={2}
        maxLength={200}
        value={motivo}
        aria-invalid={invalid}
        aria-describedby={invalid ? `${props.id}-motivo-erro` : undefined}
        onInput={(e) => setMotivo(e.currentTarget.value)}
      />
      {invalid && (
        <p id={`${props.id}-motivo-erro`} class="form-error" role="alert">
          Informe o motivo (de 3 a 200 caracteres).
        </p>
      )}
      <div class="row">
        <button type="submit" class="btn btn-danger" disabled={props.busy}>
          Confirmar estorno
        </button>
        <button type="button" class="btn" onClick={props.onCancel}>
          Cancelar
        </button>
      </div>
    </form>
  );
}
