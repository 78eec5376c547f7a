import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { About } from './About';
import { Banner } from './Banner';
import type { Engine, EngineState } from './engine';
import { kindOf, signalAfterPaint } from './feedback';
import { Pair } from './Pair';
import { Queue } from './Queue';
import { Scan } from './Scan';
import { Shift } from './Shift';
import { tokenFrom } from './token';
import { createWedge, inField, type Read } from './wedge';

type Tab = 'scan' | 'fila' | 'sobre';

const tokenInUrl = () => (location.hash.includes('parear=') ? tokenFrom(location.hash) : null);

export function App({ engine }: { engine: Engine }) {
  const [s, setS] = useState<EngineState>(engine.state);
  const [tab, setTab] = useState<Tab>('scan');
  const [token, setToken] = useState(tokenInUrl);
  const [now, setNow] = useState(Date.now());
  useEffect(() => engine.subscribe(setS), [engine]);
  // A pairing link opened in this tab while the app shows (a revoked device read the console's new QR): taken up.
  useEffect(() => {
    const onHash = () => {
      const t = tokenInUrl();
      if (t) setToken(t);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  // On the root element: the day data's time and the mode, for support (devtools) and bench:handheld.
  useEffect(() => {
    document.documentElement.dataset.dados = s.dados?.gerado_em ?? '';
    document.documentElement.dataset.modo = s.mode;
  }, [s.dados, s.mode]);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(t);
  }, []);
  // A pairing done (or declined on a device already paired): the code in the URL is spent.
  const dropToken = useCallback(() => {
    history.replaceState(null, '', location.pathname);
    setToken(null);
  }, []);

  const scanning = !!s.device && !s.revoked && !token && !!s.operador;
  // A code read again within the repeat window (wedge.ts): said on screen, not decided again.
  const [repeat, setRepeat] = useState<string | null>(null);
  const onRead = useCallback(
    async (read: Read, startedAt: number) => {
      if (read.repeat) return setRepeat(read.code);
      setRepeat(null);
      setTab('scan');
      const r = await engine.scan(read.code, startedAt);
      if (r) signalAfterPaint(kindOf(r.resultado, r.noAparelho));
    },
    [engine],
  );
  const [wedge] = useState(createWedge);
  // One listener for the page's life (not re-added per render): an imager's first keys are never lost to a render.
  const live = useRef({ scanning, onRead });
  live.current = { scanning, onRead };
  // Before the first paint: a read that arrives as soon as the scan screen shows is not lost.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!live.current.scanning || inField(e.target)) return;
      if (e.key === 'Tab' || e.key === 'Enter') e.preventDefault();
      // The scan's time starts at its input (GATE_HANDHELD_TIMEOUT_MS bounds the whole scan); monotonic, as the
      // repeat window: the device's clock may be set while scanning.
      const at = performance.now();
      const read = wedge.key(e, at);
      if (read) void live.current.onRead(read, at);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [wedge]);
  const fromCamera = useCallback(
    (code: string) => {
      const at = performance.now();
      void onRead(wedge.read(code, at), at);
    },
    [wedge, onRead],
  );

  if (!s.device || s.revoked || token)
    return (
      <>
        {s.fila > 0 && <Banner s={s} now={now} />}
        <Pair
          key={token ?? ''}
          engine={engine}
          initialToken={token}
          revoked={s.revoked}
          onDone={dropToken}
          onCancel={s.device && !s.revoked ? dropToken : null}
        />
      </>
    );
  if (!s.operador) return <Shift engine={engine} last={s.ultimoOperador ?? ''} />;
  return (
    <div class="app">
      <Banner s={s} now={now} />
      {tab === 'scan' && <Scan s={s} repeat={repeat} onCode={fromCamera} />}
      {tab === 'fila' && <Queue engine={engine} s={s} />}
      {tab === 'sobre' && <About engine={engine} s={s} />}
      <nav class="tabs" aria-label="Telas">
        {(
          [
            ['scan', 'Leitura'],
            ['fila', `Fila (${s.fila})`],
            ['sobre', 'Sobre'],
          ] as const
        ).map(([id, label]) => (
          <button key={id} aria-current={tab === id ? 'page' : undefined} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
      </nav>
    </div>
  );
}
