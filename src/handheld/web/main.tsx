import { render } from 'preact';
import { App } from './App';
import { createApi } from './api';
import { createEngine, type AppConfig } from './engine';
import { openStore } from './store';
import './app.css';

// The handheld app (docs/handheld.md): its config from the box (or the last one kept, offline), its storage, the
// engine, the page, and the service worker that lets it open with the box away.

const DEFAULTS: AppConfig = { timeoutMs: 800, nomes: false, fusoHorario: 'America/Sao_Paulo' };

async function loadConfig(store: Awaited<ReturnType<typeof openStore>>): Promise<AppConfig> {
  try {
    const res = await fetch('/m/config.json', { cache: 'no-store', signal: AbortSignal.timeout(2000) });
    const config = { ...DEFAULTS, ...((await res.json()) as Partial<AppConfig>) };
    await store.set('config', config);
    return config;
  } catch {
    return (await store.get<AppConfig>('config')) ?? DEFAULTS;
  }
}

async function start() {
  if ('serviceWorker' in navigator)
    navigator.serviceWorker.register('/m/sw.js', { scope: '/m/' }).catch(() => undefined);
  // Ask the browser not to evict the queue under storage pressure.
  void navigator.storage?.persist?.().catch(() => false);
  const store = await openStore();
  const config = await loadConfig(store);
  let key: string | null = null;
  const api = createApi({ key: () => key });
  const engine = createEngine({ store, api, config, decisionLock: navigator.locks });
  engine.subscribe((s) => (key = s.device?.chave ?? null));
  await engine.start();
  render(<App engine={engine} />, document.getElementById('app')!);
}

start().catch((e: unknown) => {
  document.getElementById('app')!.textContent = `Erro ao abrir o app: ${e instanceof Error ? e.message : String(e)}`;
});
