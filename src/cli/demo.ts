import { printDemoBanner, seedDemo } from '../demo/demo.js';
import { removeDemo } from '../demo/retire.js';
import { realTenantSlugs } from '../tenants/tenants.repo.js';
import { configOf, EXIT, parse, printHelp, say, withDb, type CliIo } from './common.js';

/** `gate demo`: seeds (or refreshes) the demo park and prints its keys; `--remove` takes it away. */
export async function demoCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(args, { remove: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (help) return printHelp(io, 'demo');
  const config = configOf(io);
  return withDb(config, ({ db, clock }) => {
    if (values.remove) {
      const removed = removeDemo(db);
      if (!removed) return (say(io.stdout, 'não há tenant de demonstração neste banco'), EXIT.ok);
      const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
      say(
        io.stdout,
        `tenant de demonstração removido: ${n(removed.pedidos, 'pedido', 'pedidos')}, ${n(removed.chaves, 'chave', 'chaves')}, ${n(removed.operadores, 'operador', 'operadores')}, ${n(removed.eventos, 'evento', 'eventos')}`,
      );
      say(
        io.stderr,
        'se o serviço está rodando, reinicie-o (sudo systemctl restart gate) para que nada dele fique em memória',
      );
      return EXIT.ok;
    }
    // Demo keys beside a park are refused (src/auth/api-keys.ts): printing them would only mislead.
    const parks = realTenantSlugs(db);
    if (parks.length > 0) {
      say(
        io.stderr,
        `gate demo: este banco tem um parque real (${parks.join(', ')}); a demonstração não é criada ao lado dele. Use outro GATE_DATA_DIR para demonstrar.`,
      );
      return EXIT.failure;
    }
    const seed = seedDemo({ db, clock });
    printDemoBanner(io.stdout, {
      url: `http://localhost:${config.port || 8080}`,
      keys: seed.keys,
      sampleQr: seed.sampleQr,
    });
    return EXIT.ok;
  });
}
