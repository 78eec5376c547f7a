import { useEffect, useState } from 'preact/hooks';
import type { UploadItem } from '../handheld.schemas';
import type { Engine, EngineState } from './engine';
import type { Refused } from './store';
import { wordFor } from './words';

export function Queue({ engine, s }: { engine: Engine; s: EngineState }) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const [refused, setRefused] = useState<Refused[]>([]);
  useEffect(() => {
    void engine.queue().then(setItems);
    void engine.refused().then(setRefused);
  }, [engine, s.fila, s.recusados]);
  return (
    <main class="screen">
      <h1>Fila: {s.fila}</h1>
      <p>Movimentos decididos no aparelho, enviados ao box quando ele responder.</p>
      {s.mode === 'online' && !s.revoked && s.fila > 0 && (
        <button class="primary" onClick={() => void engine.upload()}>
          Enviar agora
        </button>
      )}
      <ul class="list">
        {items.slice(0, 200).map((i) => (
          <li key={i.id}>
            {new Date(i.decidido_em).toLocaleTimeString('pt-BR')} · {wordFor(i.resultado)} · {i.codigo}
          </li>
        ))}
      </ul>
      {refused.length > 0 && (
        <>
          <h2>Com erro: {refused.length}</h2>
          <ul class="list">
            {refused.map((r) => (
              <li key={r.item.id}>
                {r.item.codigo}: {r.erro}
              </li>
            ))}
          </ul>
        </>
      )}
    </main>
  );
}
