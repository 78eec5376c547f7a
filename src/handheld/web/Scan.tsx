import { useState } from 'preact/hooks';
import { Camera } from './Camera';
import type { EngineState } from './engine';
import { kindOf } from './feedback';

export function Scan({ s, onCode }: { s: EngineState; onCode: (code: string) => void }) {
  const [camera, setCamera] = useState(false);
  const r = s.last;
  const kind = r ? kindOf(r.resultado, r.noAparelho) : null;
  return (
    <main class={`scan ${kind ?? 'idle'}`} data-testid="resultado" data-resultado={r?.resultado ?? ''}>
      {r ? (
        <div class="result" aria-live="assertive">
          <p class="big">
            {r.resultado === 'ok' ? (r.pessoas > 1 ? `Liberado: ${r.pessoas} pessoas` : 'Liberado') : r.mensagem}
          </p>
          {r.nome && <p>{r.nome}</p>}
          {r.noAparelho && <p class="tag">decidido no aparelho</p>}
          <p class="code">{r.codigo}</p>
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
