import { useState } from 'preact/hooks';
import type { Engine } from './engine';
import { prepareSound } from './feedback';

export function Shift({ engine, last }: { engine: Engine; last: string }) {
  const [nome, setNome] = useState(last);
  const submit = async (e: Event) => {
    e.preventDefault();
    prepareSound();
    if (nome.trim()) await engine.setOperator(nome.trim());
  };
  return (
    <main class="screen">
      <h1>Início do turno</h1>
      <form onSubmit={submit} class="form">
        <label>
          Operador
          <input value={nome} onInput={(e) => setNome(e.currentTarget.value)} maxLength={80} required />
        </label>
        <button class="primary">Começar</button>
      </form>
    </main>
  );
}
