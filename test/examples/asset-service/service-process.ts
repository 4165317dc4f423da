/**
 * The service as its own process (`npm run demo`'s entry point under tsx), for tests that must see
 * whether the process survives: it is started with the environment given, and the URL and the
 * read-write demo client are read from its start banner.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface ServiceProcess {
  readonly url: string;
  readonly tenant: string;
  /** Everything the process wrote to stdout and stderr so far. */
  readonly output: () => string;
  /** The exit code, or null while it runs. */
  readonly exitCode: () => number | null;
  /** The token endpoint's answer for the read-write demo client. */
  requestToken(): Promise<Response>;
  /** Headers of the read-write demo client (a fresh token). */
  headers(): Promise<Record<string, string>>;
  /** Stops the process (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Starts `examples/asset-service/src/main.ts` with `env` added to this process's environment. */
export async function startServiceProcess(env: Readonly<Record<string, string>>): Promise<ServiceProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env };
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/asset-service/src/main.ts'], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const begun = Date.now();
  while (!output.includes('Ctrl-C stops the server.')) {
    if (child.exitCode !== null) throw new Error(`the service exited early:\n${output}`);
    if (Date.now() - begun > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`no banner after 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const field = (pattern: RegExp): string => pattern.exec(output)?.[1] ?? '';
  const url = field(/listening on (http:\/\/\S+)/);
  const tenant = field(/tenant: +([0-9a-f-]{36})/);
  const clientId = field(/read-write: client_id=(\S+)/);
  const secret = field(/read-write: client_id=\S+ client_secret=(\S+)/);
  const requestToken = (): Promise<Response> =>
    fetch(`${url}/directory/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
    });
  return {
    url,
    tenant,
    output: () => output,
    exitCode: () => child.exitCode ?? (child.signalCode === null ? null : -1),
    requestToken,
    headers: async () => {
      const response = await requestToken();
      if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
      const { access_token: token } = (await response.json()) as { access_token: string };
      return { authorization: `Bearer ${token}`, 'service-tenant-id': tenant, accept: 'application/json', 'content-type': 'application/json' };
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
