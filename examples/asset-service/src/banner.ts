/** What `npm run demo` prints at start. */
import type { Config } from './config.js';

/** The start banner: URL, data, tenant, clients and three curl commands to try. */
export function banner(config: Config, url: string): string {
  const { demo } = config;
  const token = `curl -s -X POST ${url}/directory/connect/token -H 'Accept: application/json' -d grant_type=client_credentials -d client_id=${demo.clientId} -d client_secret=${demo.clientSecret}`;
  const auth = `-H "Authorization: Bearer $TOKEN" -H 'Service-Tenant-Id: ${demo.tenantId}' -H 'Accept: application/json'`;
  return [
    '',
    `Asset Management Service listening on ${url}`,
    `  data:       ${config.databaseUrl === undefined ? `embedded PostgreSQL (PGlite) in ${config.dataDir}` : `PostgreSQL ${config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')} (schema ${config.databaseSchema}); demo credentials in ${config.dataDir}`}`,
    `  tenant:     ${demo.tenantId}`,
    `  read-write: client_id=${demo.clientId} client_secret=${demo.clientSecret}`,
    `  read-only:  client_id=${demo.readOnlyClientId} client_secret=${demo.readOnlyClientSecret}`,
    `  playground: ${url}/playground (try queries in the browser: diagnostics, SQL, MongoDB, results)`,
    '',
    'Try:',
    `  TOKEN=$(${token} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `  curl -s -g ${auth} '${url}/assets?$filter=status%20eq%20%27active%27&$expand=locality&$select=id,code,name,locality&$orderby=code&$top=3&$count=true'`,
    `  curl -s -g ${auth} '${url}/assets?$top=5000'`,
    '',
    'Ctrl-C stops the server.',
    '',
  ].join('\n');
}
