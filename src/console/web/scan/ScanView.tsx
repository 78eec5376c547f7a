import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorMessage } from '../api';
import { formatTime } from '../format';
import { play, soundKind } from '../sound';
import type { Leitura } from '../../console.answers';
import { ScanResult } from './ScanResult';

/** A desk scanner often sends the same code twice: a repeat this soon is not a new scan. */
const REPEAT_WINDOW_MS = 2000;
const HISTORY = 6;

export function ScanView() {
  const input = useRef<HTMLInputElement>(null);
  const last = useRef<{ code: string; at: number } | null>(null);
  const seq = useRef(0);
  const [result, setResult] = useState<Leitura | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [history, setHistory] = useState<Leitura[]>([]);
  const [waiting, setWaiting] = useState(0);

  const refocus = () => input.current?.focus();
  // Keep the wedge's keystrokes going to the input unless the operator moved focus on purpose.
  const refocusIfLoose = () => {
    const a = document.activeElement;
    if (!a || a === document.body || !a.matches('a[href],button,input,select,textarea,summary')) refocus();
  };
  useEffect(refocus, []);
  // A key typed while nothing has focus (the page just opened, a click on empty space) still
  // reaches the input: moving focus during keydown sends the character to the new target.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.ctrlKey && !e.altKey && !e.metaKey) refocusIfLoose();
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, []);
  const onBlur = () => setTimeout(refocusIfLoose, 0);

  const submit = (e: Event) => {
    e.preventDefault();
    const el = input.current;
    if (!el) return;
    const code = el.value.trim();
    el.value = '';
    if (!code) return;
    const now = performance.now();
    if (last.current && last.current.code === code && now - last.current.at < REPEAT_WINDOW_MS) {
      setNote(`Leitura repetida de ${code} ignorada.`);
      return;
    }
    last.current = { code, at: now };
    setNote(null);
    const mine = ++seq.current;
    setWaiting((n) => n + 1);
    api<Leitura>('POST', '/api/console/leitura', { codigo: code })
      .then(
        (leitura) => {
          setHistory((h) => [leitura, ...h].slice(0, HISTORY));
          if (mine !== seq.current) return;
          setResult(leitura);
          setFailure(null);
          play(soundKind(leitura));
        },
        (err: unknown) => {
          // Not registered, so reading it again at once is a new try, not a repeat.
          if (last.current?.code === code) last.current = null;
          if (mine !== seq.current) return;
          setResult(null);
          setFailure(`Não foi possível registrar a leitura de ${code}: ${errorMessage(err)}`);
          play('outro');
        },
      )
      .finally(() => {
        setWaiting((n) => n - 1);
        refocusIfLoose();
      });
  };

  return (
    <section
      class="scan"
      aria-labelledby="scan-title"
      onClick={(e) => (e.target as HTMLElement).closest('a,button,input') || refocus()}
    >
      <h1 id="scan-title" class="visually-hidden">
        Leitura de ingressos
      </h1>
      <form class="scan-form" onSubmit={submit}>
        <label for="scan-input">Código do ingresso</label>
        <input
          id="scan-input"
          ref={input}
          class="scan-input"
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
          enterKeyHint="go"
          onBlur={onBlur}
          aria-describedby="scan-help"
        />
        <button type="submit" class="btn btn-primary">
          Registrar
        </button>
      </form>
      <p id="scan-help" class="hint">
        Aponte o leitor para o QR code ou digite o código e tecle Enter.
      </p>
      <ScanStage failure={failure} result={result} waiting={waiting > 0} />
      <p class="scan-note" role="status">
        {note ?? ''}
      </p>
      {history.length > 0 && <ScanHistory history={history} />}
    </section>
  );
}

/** The answer filling the screen: the box's, the failure to reach it, or ready for the next scan. */
function ScanStage({ failure, result, waiting }: { failure: string | null; result: Leitura | null; waiting: boolean }) {
  return (
    <div class="scan-stage" aria-live="assertive" aria-atomic="true" aria-busy={waiting}>
      {failure ? (
        <div class="scan-result refused" data-resultado="erro">
          <p class="scan-title">ERRO</p>
          <p class="scan-message">{failure}</p>
        </div>
      ) : result ? (
        <ScanResult leitura={result} />
      ) : (
        <div class="scan-result idle">
          <p class="scan-title">Pronto para ler</p>
        </div>
      )}
    </div>
  );
}

/** The station's last answers, newest first. */
function ScanHistory({ history }: { history: Leitura[] }) {
  return (
    <section class="scan-history" aria-labelledby="scan-history-title">
      <h2 id="scan-history-title">Últimas leituras desta estação</h2>
      <ol>
        {history.map((l, i) => (
          <li key={`${l.em}-${i}`} class={l.resultado === 'liberado' ? 'ok' : 'no'}>
            <span>{formatTime(l.em)}</span> <span>{l.codigo}</span> <strong>{l.titulo}</strong>
          </li>
        ))}
      </ol>
    </section>
  );
}
