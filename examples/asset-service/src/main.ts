/**
 * `npm run demo`: starts the Asset Management Service, prints where it listens, the demo
 * credentials and three curl commands, and stops gracefully on SIGINT/SIGTERM.
 */
import { banner } from './banner.js';
import { loadConfig } from './config.js';
import { startService } from './server.js';

async function main(): Promise<void> {
  // Everything the service creates (the data directory, PGlite's files, the demo credentials) is
  // for its own user only.
  process.umask(0o077);
  const config = loadConfig();
  const service = await startService(config);
  process.stdout.write(`${banner(config, service.url)}\n`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: shutting down (finishing running requests, closing the database)\n`);
    service.close().then(
      () => {
        process.stdout.write('Stopped.\n');
        process.exit(0);
      },
      (error: unknown) => {
        service.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`asset-service failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
