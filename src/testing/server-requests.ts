/**
 * Requests to a running OData server for the testing kit's server tools (`fuzzODataServer`,
 * `diffODataServers`), and what their reports show of an answer: the status and time, the headers
 * that matter, the start of the body, and a `curl` command that repeats the request.
 */

/** Where requests go: a collection's URL, the headers for every request, and how long to wait. */
export interface Endpoint {
  /** The collection's URL, e.g. `http://localhost:3000/assets`. */
  readonly url: string;
  /** Headers for every request (authorization, tenant, …). Reports show `authorization` and cookies redacted. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A request that takes longer fails (default 5 000 ms). */
  readonly timeoutMs?: number;
}

/** One answer, with what a report shows of it. */
export interface Answer {
  readonly status: number;
  /** The body read by `JSON.parse`, or `undefined` when it is not JSON. */
  readonly body: unknown;
  readonly text: string;
  readonly headers: Headers;
  readonly ms: number;
  readonly url: string;
}

/** Sends `GET <url>?<query>`; rejects with a report when no answer comes in time. */
export async function send(
  endpoint: Endpoint,
  query: string,
  url = `${endpoint.url}${query === '' ? '' : endpoint.url.includes('?') ? '&' : '?'}${query}`,
): Promise<Answer> {
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...endpoint.headers }, signal: AbortSignal.timeout(endpoint.timeoutMs ?? 5000) });
  } catch (error) {
    const ms = performance.now() - started;
    throw new Error(report(endpoint, `no answer (${error instanceof Error ? error.message : String(error)})`, query, { url, ms }));
  }
  const text = await response.text();
  const ms = performance.now() - started;
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, headers: response.headers, ms, url };
}

/** A header value as a report shows it: credentials redacted. */
function shown(name: string, value: string): string {
  return /^(authorization|cookie|proxy-authorization|x-api-key)$/i.test(name) ? '<redacted>' : value;
}

/** A shell word in single quotes. */
const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** What a report shows of one answer (indented lines): status and time, headers, body, `curl`. */
export function answerLines(endpoint: Endpoint, answer: Partial<Answer> & { url: string; ms: number }, indent = '  '): string[] {
  const lines: string[] = [];
  if (answer.status !== undefined) lines.push(`${indent}status:  ${answer.status} in ${answer.ms.toFixed(0)} ms`);
  else lines.push(`${indent}after:   ${answer.ms.toFixed(0)} ms`);
  if (answer.headers !== undefined) {
    const relevant = ['content-type', 'odata-version', 'location', 'retry-after', 'www-authenticate']
      .map((name) => [name, answer.headers?.get(name)] as const)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([name, value]) => `${name}: ${value}`);
    if (relevant.length > 0) lines.push(`${indent}headers: ${relevant.join('; ')}`);
  }
  if (answer.text !== undefined) lines.push(`${indent}body:    ${answer.text.slice(0, 500)}${answer.text.length > 500 ? '…' : ''}`);
  const headers = Object.entries({ accept: 'application/json', ...endpoint.headers }).map(([name, value]) => `-H ${quoted(`${name}: ${shown(name, value)}`)}`);
  lines.push(`${indent}repeat:  curl -sS -i ${headers.join(' ')} ${quoted(answer.url)}`);
  return lines;
}

/** The report of a finding: what went wrong, the query, the answer, and how to repeat it. */
export function report(endpoint: Endpoint, problem: string, query: string, answer: Partial<Answer> & { url: string; ms: number }): string {
  return [problem, `  query:   ${query}`, ...answerLines(endpoint, answer)].join('\n');
}

/** A deviation of a service already known: what it is, and a pattern of the reports it gives. */
export interface KnownDeviation {
  readonly why: string;
  readonly match: RegExp;
}

/** A known deviation met in a run: how often, and its first report. */
export interface MetDeviation {
  readonly why: string;
  readonly count: number;
  readonly example: string;
}

/**
 * The findings of a run: `found` throws a report as an error unless one of `known` matches it,
 * which is then counted instead (`met`).
 */
export function findings(known: readonly KnownDeviation[] = []): { found(text: string): void; met(): MetDeviation[] } {
  const seen = new Map<KnownDeviation, { count: number; example: string }>();
  return {
    found(text) {
      const deviation = known.find((candidate) => candidate.match.test(text));
      if (deviation === undefined) throw new Error(text);
      const was = seen.get(deviation);
      if (was === undefined) seen.set(deviation, { count: 1, example: text });
      else was.count++;
    },
    met: () => [...seen].map(([deviation, { count, example }]) => ({ why: deviation.why, count, example })),
  };
}

/** fast-check's failure as a report: the finding's report, then fast-check's seed, shrink path and shrunk query. */
export function withReproduction(error: unknown): unknown {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(error instanceof Error) || !(cause instanceof Error)) return error;
  const reproduce = error.message
    .split('\n')
    .filter((line) => !line.startsWith('Hint:') && line.trim() !== '')
    .join('\n  ');
  return new Error(`${cause.message}\n  fast-check: ${reproduce}`, { cause });
}
