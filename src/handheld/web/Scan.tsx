import { useState } from 'preact/hooks';
import { Camera } from './Camera';
import type { EngineState } from './engine';
import { kindOf } from './feedback';

/** The count the attendant lets through: the people this scan let in, never the whole order. */
const granted = (pessoas: number) =>
  pessoas === 0 ? 'Liberado' : `Liberado: ${pessoas} ${pessoas === 1 ? 'pessoa' : 'pessoas'}`;

export function Scan({
  s,
  repeat,
  onCode,
}: {
  s: EngineState;
  /** A code read again within the repeat window (wedge.ts): not decided again; the result shown stays. */
  repeat: string | null;
  onCode: (code: string) => void;
}) {
  const [camera, setCamera] = useState(false);
  const r = s.last;
  const kind = r ? kindOf(r.resultado, r.noAparelho) : null;
  return (
    <main class={`scan ${kind ?? 'idle'}`} data-testid="resultado" data-resultado={r?.resultado ?? ''}>
      {r ? (
        <div class="result" aria-live="assertive">
          <p class="big">{r.resultado === 'ok' ? granted(r.pessoas) : r.mensagem}</p>
          {r.ingressos.map((t) => (
            <p class="ticket" key={t.texto}>
              {r.ingressos.length > 1 || t.pessoas > 1 ? `${t.pessoas} × ${t.texto}` : t.texto}
            </p>
          ))}
          {r.nome && <p>{r.nome}</p>}
          {r.noAparelho && <p class="tag">decidido no aparelho</p>}
          <p class="code">{r.codigo}</p>
          {repeat && <p class="repeat">Leitura repetida de {repeat} ignorada.</p>}
        </div>
      ) : (
        <div class="result">
          <p class="big">Pronto para ler</p>
          <p>Aponte o leitor para o QR do ingresso.</p>
        </div>
      )}
      {camera ? (
        <Camera onCode={onCode} onClose={() => setCamera(false)} />
      ) : (
        <button class="secondary" onClick={() => setCamera(true)}>
          Ler com a câmera
        </button>
      )}
    </main>
  );
}
