/**
 * `npm run demo` as a user runs it: a child process that prints the URL, the data directory, the
 * demo tenant, both clients and three curl commands, serves requests, keeps generated credentials
 * and data across a restart, and stops cleanly on SIGINT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'asset-service-demo-'));
// A directory the demo has to create itself (so its mode is the demo's doing).
const dataDir = join(root, 'data');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file and directory under `dir` whose mode gives group or others any access. */
function notOwnerOnly(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isSymbolicLink() && (statSync(path).mode & 0o077) !== 0) found.push(`${path} ${(statSync(path).mode & 0o777).toString(8)}`);
  }
  return found;
}

interface Running {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** Starts the demo entry point (what `npm run demo` runs) and waits for its banner. */
async function startDemo(): Promise<Running> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const name of [
    'DATABASE_URL',
    'DEMO_TENANT_ID',
    'DEMO_CLIENT_ID',
    'DEMO_CLIENT_SECRET',
    'DEMO_READONLY_CLIENT_ID',
    'DEMO_READONLY_CLIENT_SECRET',
    'TOKEN_SIGNING_KEY',
  ])
    delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/asset-service/src/main.ts'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = Date.now();
  while (!output.includes('Ctrl-C stops the server.')) {
    if (child.exitCode !== null) throw new Error(`the demo exited early:\n${output}`);
    if (Date.now() - started > 45_000) throw new Error(`no banner after 45 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output, exited };
}

function field(output: string, pattern: RegExp): string {
  const match = pattern.exec(output);
  if (match === null) throw new Error(`${String(pattern)} not in:\n${output}`);
  return match[1] as string;
}

describe('npm run demo', () => {
  it('prints URL, data dir, tenant, both clients and three curl commands; serves; SIGINT stops it; a restart keeps credentials and data', async () => {
    const first = await startDemo();
    const banner = first.output();
    const url = field(banner, /listening on (http:\/\/\S+)/);
    expect(banner).toContain(`PGlite) in ${dataDir}`);
    expect(banner).toContain(`playground: ${url}/playground`);
    const tenant = field(banner, /tenant: +([0-9a-f-]{36})/);
    const clientId = field(banner, /read-write: client_id=(\S+)/);
    const secret = field(banner, /read-write: client_id=\S+ client_secret=(\S+)/);
    expect(banner).toMatch(/read-only: +client_id=\S+ client_secret=\S+/);
    expect(banner.match(/^ {2}(TOKEN=\$\()?curl /gm)).toHaveLength(3);
    expect(banner).toContain('$top=5000');
    expect(banner).toContain('$expand=locality');
    expect(statSync(join(dataDir, 'demo-credentials.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'))).toMatchObject({ tenantId: tenant, clientSecret: secret });

    const tokenResponse = await fetch(`${url}/directory/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    // The playground page needs no credentials and carries the service's model.
    const playground = await fetch(`${url}/playground`);
    expect(playground.status).toBe(200);
    expect(await playground.text()).toContain('AssetManagement');
    const headers = { authorization: `Bearer ${token}`, 'service-tenant-id': tenant, accept: 'application/json' };
    const list = await fetch(`${url}/assets?$filter=status%20eq%20%27active%27&$expand=locality&$count=true&$top=2`, { headers });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { value: unknown[]; count: number };
    expect(body.value).toHaveLength(2);
    expect(body.count).toBeGreaterThan(2);
    const id = crypto.randomUUID();
    expect(
      (
        await fetch(`${url}/localities`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ id, name: 'Kept across restarts' }),
        })
      ).status,
    ).toBe(200);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('SIGINT: shutting down');
    expect(first.output()).toContain('Stopped.');
    // The data directory, PGlite's files and the credentials are the service user's only (umask 077).
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir, { recursive: true }).length).toBeGreaterThan(100);
    expect(notOwnerOnly(dataDir)).toEqual([]);

    const second = await startDemo();
    try {
      expect(field(second.output(), /tenant: +([0-9a-f-]{36})/)).toBe(tenant);
      expect(field(second.output(), /read-write: client_id=\S+ client_secret=(\S+)/)).toBe(secret);
      const url2 = field(second.output(), /listening on (http:\/\/\S+)/);
      const again = await fetch(`${url2}/directory/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
      });
      const { access_token: token2 } = (await again.json()) as { access_token: string };
      const headers2 = { ...headers, authorization: `Bearer ${token2}` };
      expect((await fetch(`${url2}/localities/${id}`, { headers: headers2 })).status).toBe(200);
      // The token of the first run is still valid: the signing key is kept in the data directory.
      expect((await fetch(`${url2}/localities/${id}`, { headers })).status).toBe(200);
      const counted = (await (await fetch(`${url2}/assets?$count=true&$top=0`, { headers: headers2 })).json()) as { count: number };
      expect(counted.count).toBe(240);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  }, 120_000);
});
