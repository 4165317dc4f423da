/**
 * The playground: type a query (with completion, hover descriptions and signature help from the
 * library's language service: editor.ts), pick an entity set, and see the diagnostics underlined
 * in place, the AST, the canonical query string, the SQL of each dialect with its parameters, the
 * MongoDB query, and the in-memory backend's result on demo data. Everything runs in the browser
 * on the library's bundle. Served by the example server at `/playground` (then the model comes
 * from its `/$metadata`), or opened on its own from `examples/playground/dist/index.html`.
 */
import {
  bindQuery,
  compileQuery,
  modelFromCsdl,
  mongoTarget,
  parseQuery,
  printQuery,
  sqlTarget,
  toMongo,
  toSql,
  validateQuery,
  type DialectName,
  type Diagnostic,
  type Model,
  type QueryTarget,
  type Row,
} from 'odata-engine';
import { demoData, standaloneModel } from './demo.js';
import { createQueryEditor, type QueryEditor } from './editor.js';

const DIALECTS: readonly DialectName[] = ['postgres', 'mysql', 'sqlite', 'mssql', 'duckdb'];
/**
 * Example queries per entity set, for the built-in model and for the example server's (which
 * names a few things differently: `maintenanceTickets`, `tickets`); the page offers those that
 * are valid for the model it has, the first one preselected.
 */
const SAMPLES: Readonly<Record<string, readonly string[]>> = {
  assets: [
    "$filter=status eq 'active' and contains(name,'Pump')&$orderby=code desc&$top=5&$count=true&$expand=locality($select=name)",
    // The example server's one-to-many navigation: lambdas, /$count and collection $expand.
    "$filter=maintenanceTickets/any(t:t/status eq 'open')&$select=code,name&$expand=maintenanceTickets($select=code,status;$orderby=priority desc;$top=2;$count=true)&$top=5",
    "$filter=maintenanceTickets/all(t:t/status eq 'closed' or t/status eq 'resolved')&$count=true&$top=5",
    '$filter=maintenanceTickets/$count gt 1&$orderby=maintenanceTickets/$count desc,code&$expand=inspections/$count&$top=5',
    // The built-in model's.
    "$filter=tickets/any(t:t/priority ge 'high')&$expand=tickets($orderby=openedAt desc;$top=2;$count=true)&$top=5",
    '$filter=tickets/$count gt 1&$orderby=tickets/$count desc,code&$top=5',
    // Data aggregation: asset counts per status and per locality.
    '$apply=groupby((status),aggregate($count as assets))&$orderby=status',
    "$apply=filter(status ne 'retired')/groupby((locality/name),aggregate($count as assets))&$orderby=assets desc,locality/name",
  ],
  localities: [
    "$filter=assets/any(a:a/status eq 'retired')&$orderby=name",
    '$expand=assets($select=code,status;$orderby=code;$top=3;$count=true)&$orderby=name',
    '$orderby=assets/$count desc&$expand=assets/$count',
  ],
  'maintenance-tickets': ["$filter=priority ge 'high' and estimatedHours gt 10&$orderby=openedAt desc&$top=5"],
  maintenanceTickets: ["$filter=priority ge 'high' and asset/status eq 'active'&$orderby=dueAt desc&$expand=asset($select=code,name)&$top=5"],
  inspections: [
    '$search=pump&$orderby=score desc&$top=5',
    "$search=pressure&$filter=result eq 'failed'&$orderby=inspectedAt desc&$expand=asset($select=code)&$top=5",
  ],
};

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`#${id} is missing`);
  return found as T;
}

/** JSON for display: bigints as text, Dates as ISO text. */
function show(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v), 2) ?? 'undefined';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function loadModel(): Promise<{ model: Model; source: string; maxTop?: Readonly<Record<string, number>> }> {
  // The example server embeds its CSDL document and $top limits in the page; on its own, the page has none.
  const embedded = document.getElementById('csdl')?.textContent?.trim() ?? '';
  if (embedded !== '' && embedded !== '/*CSDL*/') {
    const server = JSON.parse(embedded) as { csdl: object; maxTop?: Record<string, number> };
    return {
      model: modelFromCsdl(server.csdl),
      source: "the example server's CSDL ($metadata)",
      ...(server.maxTop === undefined ? {} : { maxTop: server.maxTop }),
    };
  }
  try {
    const response = await fetch('/$metadata', { headers: { accept: 'application/json' } });
    if (response.ok) return { model: modelFromCsdl(await response.json()), source: "the server's /$metadata" };
  } catch {
    // not served by the example server
  }
  return { model: standaloneModel, source: 'the built-in demo model' };
}

async function start(): Promise<void> {
  const { model, source, maxTop } = await loadModel();
  const data = demoData(model);
  const select = element<HTMLSelectElement>('entity-set');
  const targetSelect = element<HTMLSelectElement>('target');
  // The backend the query is checked for: what it cannot run is underlined like any other problem.
  const targetOf = (value: string): QueryTarget | undefined => (value === '' ? undefined : value === 'mongo' ? mongoTarget() : sqlTarget(value as DialectName));
  element('model-source').textContent = source;
  for (const name of model.entitySets.keys()) {
    const option = document.createElement('option');
    option.value = name;
    option.textContent = name;
    select.append(option);
  }
  const first = [...model.entitySets.keys()][0] ?? '';
  select.value = model.entitySets.has('assets') ? 'assets' : first;
  const examples = element<HTMLSelectElement>('examples');
  // What queries bind with: the model, the selected entity set and the server's $top limit for it.
  const settingsOf = (entitySet: string) => ({ model, entitySet, ...(maxTop?.[entitySet] === undefined ? {} : { maxTop: maxTop[entitySet] }) });
  // The samples of the selected set that are valid for this model, listed in the examples menu; returns the first.
  const showExamples = (): string => {
    const settings = settingsOf(select.value);
    const valid = (SAMPLES[select.value] ?? []).filter((sample) => validateQuery(sample, settings).length === 0);
    examples.replaceChildren(
      ...(valid.length === 0 ? ['$top=5'] : valid).map((sample) => {
        const option = document.createElement('option');
        option.value = sample;
        option.textContent = sample.length > 90 ? `${sample.slice(0, 87)}…` : sample;
        return option;
      }),
    );
    return examples.options[0]?.value ?? '$top=5';
  };

  // Renders every panel for the query and returns its diagnostics, which the editor underlines.
  // The editor calls it (through its linter) 120 ms after the last change.
  const render = (query: string): Diagnostic[] => {
    const entitySet = select.value;
    const settings = settingsOf(entitySet);
    const target = targetOf(targetSelect.value);
    const diagnostics = validateQuery(query, { ...settings, ...(target === undefined ? {} : { target }) });
    const list = element('diagnostics');
    if (diagnostics.length === 0) list.innerHTML = '<li class="ok">No problems</li>';
    else
      list.replaceChildren(
        ...diagnostics.map((d) => {
          // Each problem selects its range in the editor when clicked.
          const item = document.createElement('li');
          item.className = 'problem';
          item.dataset.code = d.code;
          item.innerHTML = `<code>${escapeHtml(d.code)}</code> ${escapeHtml(d.option ?? '')}: ${escapeHtml(d.message)}`;
          item.addEventListener('click', () => {
            const length = editor.view.state.doc.length;
            editor.view.dispatch({ selection: { anchor: Math.min(d.range.start, length), head: Math.min(d.range.end, length) }, scrollIntoView: true });
            editor.view.focus();
          });
          return item;
        }),
      );
    const status = element('status');
    status.textContent = diagnostics.length === 0 ? 'valid' : `${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'}`;
    status.className = diagnostics.length === 0 ? 'valid' : 'invalid';
    // The query the panels show (the editor may be ahead of them by the 120 ms).
    status.dataset.query = query;

    const outputs = ['ast', 'canonical', 'sql', 'mongo', 'result'] as const;
    let parsed: ReturnType<typeof parseQuery> | undefined;
    try {
      parsed = parseQuery(query);
      element('ast').textContent = show(parsed);
      element('canonical').textContent = printQuery(parsed);
    } catch (error) {
      for (const id of outputs) element(id).textContent = error instanceof Error ? error.message : String(error);
      return diagnostics;
    }
    if (diagnostics.length > 0) {
      for (const id of ['sql', 'mongo', 'result'] as const) element(id).textContent = '(fix the problems above first)';
      return diagnostics;
    }
    const bound = bindQuery(parsed, settings);
    element('sql').textContent = DIALECTS.map((dialect) => {
      try {
        const { sql, params, count } = toSql(bound, { dialect });
        return `-- ${dialect}\n${sql}\n-- params: ${show(params)}${count === undefined ? '' : `\n-- count: ${count.sql}\n-- params: ${show(count.params)}`}`;
      } catch (error) {
        return `-- ${dialect}\n${error instanceof Error ? error.message : String(error)}`;
      }
    }).join('\n\n');
    try {
      element('mongo').textContent = show(toMongo(bound));
    } catch (error) {
      element('mongo').textContent = error instanceof Error ? error.message : String(error);
    }
    try {
      const result = compileQuery(bound, { data }).apply(data[entitySet] as Row[]);
      element('result').textContent = show(result);
      element('row-count').textContent =
        `${result.value.length} row${result.value.length === 1 ? '' : 's'}${result.count === undefined ? '' : ` (count ${result.count})`}`;
    } catch (error) {
      element('result').textContent = error instanceof Error ? error.message : String(error);
    }
    return diagnostics;
  };

  const editor: QueryEditor = createQueryEditor({
    parent: element('query'),
    doc: showExamples(),
    settings: () => settingsOf(select.value),
    check: render,
  });
  // What the query is checked against changed: the editor checks it again (and so renders it).
  targetSelect.addEventListener('change', () => editor.refresh());
  select.addEventListener('change', () => editor.setQuery(showExamples()));
  examples.addEventListener('change', () => editor.setQuery(examples.value));
  render(editor.view.state.doc.toString());
  document.body.dataset.ready = 'true';
}

void start();
