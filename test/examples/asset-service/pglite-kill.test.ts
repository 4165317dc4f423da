/**
 * `npm run demo` (tsx) on the PGlite worker loses no acknowledged write across `kill -9`: four
 * writers create localities until 40 were acknowledged, the process is killed, and a new one on
 * the same data directory has every acknowledged record. It measures no time (the limits are
 * minutes), so it runs beside the rest of the suite, not with the serial files.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dirs: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run demo on the PGlite worker', () => {
  it('loses no acknowledged write across kill -9', async () => {
    const dataDir = tempDir('pglite-worker-kill-');
    const start = async (): Promise<{ url: string; tenant: string; clientId: string; secret: string; kill: () => Promise<void> }> => {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
      for (const name of ['DATABASE_URL', 'DEMO_TENANT_ID', 'DEMO_CLIENT_ID', 'DEMO_CLIENT_SECRET', 'TOKEN_SIGNING_KEY']) delete env[name];
      const child = spawn(process.execPath, ['--import', 'tsx', 'examples/asset-service/src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const begun = Date.now();
      while (!output.includes('Ctrl-C stops the server.')) {
        if (child.exitCode !== null) throw new Error(`the demo exited early:\n${output}`);
        if (Date.now() - begun > 60_000) throw new Error(`no banner after 60 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const field = (pattern: RegExp): string => pattern.exec(output)?.[1] ?? '';
      return {
        url: field(/listening on (http:\/\/\S+)/),
        tenant: field(/tenant: +([0-9a-f-]{36})/),
        clientId: field(/read-write: client_id=(\S+)/),
        secret: field(/read-write: client_id=\S+ client_secret=(\S+)/),
        kill: async () => {
          child.kill('SIGKILL');
          await exited;
        },
      };
    };
    const headersFor = async (demo: { url: string; tenant: string; clientId: string; secret: string }): Promise<Record<string, string>> => {
      const response = await fetch(`${demo.url}/directory/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.secret }).toString(),
      });
      const { access_token: token } = (await response.json()) as { access_token: string };
      return { authorization: `Bearer ${token}`, 'service-tenant-id': demo.tenant, accept: 'application/json', 'content-type': 'application/json' };
    };

    const first = await start();
    const headers = await headersFor(first);
    const acknowledged: string[] = [];
    let stop = false;
    // Four writers; the process is killed while they are writing.
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const id = crypto.randomUUID();
        try {
          const response = await fetch(`${first.url}/localities`, { method: 'POST', headers, body: JSON.stringify({ id, name: `kill test ${id}` }) });
          if (response.status === 200) acknowledged.push(id);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.kill();
    stop = true;
    await Promise.all(writers);

    const second = await start();
    try {
      const headers2 = await headersFor(second);
      const missing: string[] = [];
      for (const id of acknowledged) {
        const response = await fetch(`${second.url}/localities/${id}`, { headers: headers2 });
        if (response.status !== 200) missing.push(id);
      }
      expect(missing).toEqual([]);
    } finally {
      await second.kill();
    }
  }, 180_000);
});
