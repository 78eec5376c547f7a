import { PERMISSIONS } from '../auth/api-keys.js';

export const COMMAND_USAGE = {
  serve: 'gate serve',
  migrate: 'gate migrate',
  backup: 'gate backup [--to DIR] [--keep N]',
  restore: 'gate restore [--force] ARQUIVO',
  archive: 'gate archive [--days N] [--to DIR] [--dry-run]',
  import: 'gate import --tenant SLUG [--dry-run] ARQUIVO.json',
  'tenants list': 'gate tenants list',
  'tenants create': 'gate tenants create SLUG [--name "NOME"]',
  'keys create': 'gate keys create --tenant SLUG --permissions P1,P2 [--name NOME] [--expires DATA]',
  'keys list': 'gate keys list [--tenant SLUG]',
  'keys revoke': 'gate keys revoke KEY_ID',
  'operators add': 'gate operators add --tenant SLUG --name "NOME" --role atendente|supervisor [--password]',
  'operators list': 'gate operators list [--tenant SLUG]',
  'operators disable': 'gate operators disable [--tenant SLUG] ID',
  demo: 'gate demo [--remove]',
  'site hub-config':
    'gate site hub-config --boxes CAIXA1,CAIXA2 --out DIR [--listen HOST:PORTA] [--store-dir DIR] [--monitor-port N] [--tls-cert ARQUIVO --tls-key ARQUIVO] [--force]',
  'tls ca': 'gate tls ca --rede 192.168.10.0/24 [--rede ...] [--nome "NOME DO PARQUE"] [--dir DIR] [--forcar]',
  'tls issue': 'gate tls issue --ip 192.168.10.5 --dns caixa.lan [--ip ...] [--dns ...] [--dir DIR]',
  'osdp set-key':
    'gate osdp set-key --port PORTA --address N --key-file ARQUIVO [--current-key-file ARQUIVO] [--baud 9600] [--timeout 15]',
} as const;
export type CommandName = keyof typeof COMMAND_USAGE;

export const USAGE = `uso: gate <comando> [opções]

Comandos:
  serve                    inicia o servidor da API de integração (Ctrl+C encerra)
  migrate                  aplica as migrações pendentes do banco
  backup [--to DIR] [--keep N]
                           cópia verificada do banco com a caixa em funcionamento (padrão:
                           GATE_DATA_DIR/backups, as 7 mais recentes); imprime o arquivo
  archive [--days N] [--to DIR] [--dry-run]
                           move para GATE_DATA_DIR/archive/events-AAAA-MM-DD.sqlite os eventos
                           com mais de N dias (padrão 90 ou GATE_ARCHIVE_DAYS) que a nuvem já
                           respondeu; roda com a caixa em funcionamento; --dry-run só conta
  restore [--force] ARQUIVO
                           com o serviço parado, põe uma cópia (ou um gate.db resgatado, com
                           seu -wal) no lugar do banco (o atual fica ao lado,
                           gate.db.antes-de-restaurar-...); mostra o que cada um tem e recusa
                           uma cópia com menos que o banco atual, salvo com --force
  tenants list             lista os tenants: pedidos, chaves e operadores de cada um
  tenants create SLUG [--name "NOME"]
                           cria o tenant de um parque (letras minúsculas, dígitos e hífens)
  import --tenant SLUG [--dry-run] ARQUIVO.json
                           importa pedidos, combos, disponibilidade e clientes num tenant
                           existente; valida tudo antes de gravar (exemplo do formato:
                           docs/examples/importacao.json); --dry-run só valida e conta o
                           que mudaria, sem gravar nada
  keys create --tenant SLUG --permissions P1,P2 [--name NOME] [--expires DATA]
                           cria uma chave de API e imprime só a chave na saída padrão
  keys list [--tenant SLUG]
                           lista as chaves (nunca a chave em si)
  keys revoke KEY_ID       revoga uma chave (o id de 12 hex da lista, ou a chave inteira)
  operators add --tenant SLUG --name "NOME" --role atendente|supervisor [--password]
                           cria um operador do console e imprime um PIN de uso pessoal
                           (com --password, a senha é lida da entrada padrão)
  operators list [--tenant SLUG]
                           lista os operadores (ativo, bloqueado ou desativado)
  operators disable [--tenant SLUG] ID
                           desativa um operador e encerra suas sessões
  demo                     cria ou renova o tenant de demonstração e imprime suas chaves
  demo --remove            apaga o tenant de demonstração com tudo o que é dele
  osdp set-key --port PORTA --address N --key-file ARQUIVO [--current-key-file ARQUIVO]
                           grava a chave do canal seguro (SCBK) num leitor OSDP que ainda
                           tem a chave padrão (modo de instalação) ou a chave atual dada;
                           com o serviço parado (a porta é dele enquanto roda)
  site hub-config --boxes CAIXA1,CAIXA2 --out DIR [--tls-cert ARQUIVO --tls-key ARQUIVO]
                           grava a configuração do nats-server do hub do site e uma senha
                           por caixa (docs/site.md); não imprime as senhas; com --tls-cert e
                           --tls-key, o hub só aceita TLS (certificado assinado pela CA do site)
  tls ca --rede 192.168.10.0/24 [--nome "NOME"] [--dir DIR] [--forcar]
                           cria a CA da rede local do parque (só vale para as redes dadas e
                           nomes .lan); rode como o usuário do serviço (sudo -u gate ...)
  tls issue --ip 192.168.10.5 --dns caixa.lan [--ip ...] [--dns ...] [--dir DIR]
                           emite o certificado da caixa, assinado por essa CA (padrão do DIR:
                           GATE_TLS_DIR ou GATE_DATA_DIR/tls; docs/handheld.md)
  --version                mostra a versão
  help                     mostra esta ajuda

Permissões: ${PERMISSIONS.join(', ')}

Ambiente:
  GATE_DATA_DIR   diretório dos dados (padrão ./data; banco em GATE_DATA_DIR/gate.db)
  GATE_TIMEZONE   fuso horário IANA do parque (padrão America/Sao_Paulo)
  GATE_TENANT     tenant padrão, quando --tenant não é informado (deve existir)
  GATE_HOST, GATE_PORT, GATE_LOG_LEVEL   endereço, porta e nível de log do serve
  GATE_TLS_DIR    HTTPS com o certificado de gate tls issue, renovado pela caixa
  GATE_HTTP_CA_PORT  porta HTTP que entrega a CA em /ca com GATE_TLS_DIR (padrão 8081; 0 desliga)
  GATE_CONSOLE_IDLE_MIN  minutos sem uso que encerram uma sessão do console (padrão 720)

Saída: 0 sucesso, 1 falha, 2 uso incorreto ou configuração inválida.
Mais em docs/cli.md.
`;

export const commandUsage = (name: CommandName) => `uso: ${COMMAND_USAGE[name]}\n`;
