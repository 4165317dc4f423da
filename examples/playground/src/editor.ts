/**
 * The playground's query box: a one-line CodeMirror 6 editor on the library's language service.
 * Completion comes from `completeQuery`, the squiggles from `validateQuery` (through the lint
 * extension), hover tooltips from `describeQuery` and the signature of the call at the cursor from
 * `signatureHelp`. The service speaks in offsets into the whole query string, as CodeMirror does
 * for a one-line document, so its ranges are used as they are.
 */
import {
  acceptCompletion,
  autocompletion,
  pickedCompletion,
  type Completion as EditorCompletion,
  type CompletionContext,
  type CompletionResult,
} from '@codemirror/autocomplete';
import { history, historyKeymap, standardKeymap } from '@codemirror/commands';
import { linter, lintKeymap, type Diagnostic as EditorDiagnostic } from '@codemirror/lint';
import { EditorState, Prec, StateEffect, StateField, type Extension, type Text } from '@codemirror/state';
import { EditorView, hoverTooltip, keymap, showTooltip, type Tooltip } from '@codemirror/view';
import { completeQuery, describeQuery, quickFixes, signatureHelp, type BindSettings, type Completion, type Diagnostic } from 'odata-engine';

/** How the page wires the editor: the settings the query binds with, and its checks. */
export interface QueryEditorOptions {
  readonly parent: HTMLElement;
  readonly doc: string;
  /** The model and entity set (and limits) the query is bound with, read at each request. */
  readonly settings: () => BindSettings;
  /**
   * The diagnostics of a query: the page renders its panels for it and returns what
   * `validateQuery` found, which the editor underlines. Called 120 ms after the last change.
   */
  readonly check: (query: string) => readonly Diagnostic[];
}

export interface QueryEditor {
  readonly view: EditorView;
  /** Replaces the whole query (an example picked, another entity set) and checks it again. */
  setQuery(query: string): void;
  /** Checks the query again: something it is checked against changed (the target, the entity set). */
  refresh(): void;
}

/** Asks the linter to run again although the text is the same. */
const recheck = StateEffect.define<null>();

/** CodeMirror's icon names for the service's kinds of completion (a kind not listed here: `text`). */
const ICONS: Readonly<Partial<Record<Completion['kind'], string>>> = {
  option: 'namespace',
  property: 'property',
  navigation: 'class',
  computed: 'property',
  function: 'function',
  transformation: 'method',
  keyword: 'keyword',
  operator: 'keyword',
  enumMember: 'enum',
  literal: 'text',
  variable: 'variable',
};

/** A CodeMirror completion that keeps the text it inserts. */
type ServiceCompletion = EditorCompletion & { readonly insertText: string };

/**
 * The service's completions as CodeMirror's. Each item replaces its own range (they may differ:
 * an option's name and a value's word), so the result starts at the smallest start and each item
 * applies itself. The service has already filtered by the typed prefix, in its own order, so
 * CodeMirror does not filter again (`filter: false`) and asks again after each keystroke.
 */
function completionSource(settings: () => BindSettings) {
  return (context: CompletionContext): CompletionResult | null => {
    const text = context.state.doc.toString();
    const pos = context.pos;
    const items = completeQuery(text, pos, settings());
    if (items.length === 0) return null;
    const from = Math.min(...items.map((item) => item.range.start));
    return {
      from,
      to: pos,
      filter: false,
      options: items.map((item): ServiceCompletion => {
        const { start, end } = item.range;
        return {
          label: item.label,
          insertText: item.insertText,
          type: ICONS[item.kind] ?? 'text',
          ...(item.detail === undefined ? {} : { detail: item.detail }),
          ...(item.documentation === undefined ? {} : { info: item.documentation }),
          apply: (view, completion, resultFrom, resultTo) => {
            // `resultFrom`/`resultTo` are this result's from/to mapped through what was typed
            // since it was computed (usually nothing): the item's range moves with them.
            const shiftStart = resultFrom - from;
            const shiftEnd = resultTo - pos;
            const at = start + shiftStart;
            const upTo = Math.max(at, end >= pos ? end + shiftEnd : end + shiftStart);
            view.dispatch({
              changes: { from: at, to: Math.min(upTo, view.state.doc.length), insert: item.insertText },
              selection: { anchor: at + item.insertText.length },
              scrollIntoView: true,
              userEvent: 'input.complete',
              annotations: pickedCompletion.of(completion),
            });
          },
        };
      }),
    };
  };
}

/** Offers the next completions right away after an option's name (`$filter=`), a call's `(` or a path's `/`. */
const reopensCompletion = (completion: EditorCompletion): boolean => /[=(/]$/.test((completion as Partial<ServiceCompletion>).insertText ?? '');

/** The description of what the mouse is over: its name and type, then a function's signature and the model's description. */
function hoverSource(settings: () => BindSettings) {
  return hoverTooltip((view, pos, side): Tooltip | null => {
    const text = view.state.doc.toString();
    // The character under the mouse: after `pos` (side 1) or before it (side -1).
    const at = side < 0 ? pos - 1 : pos;
    if (at < 0 || at >= text.length) return null;
    const covers = (d: { range: { start: number; end: number } } | undefined): boolean => d !== undefined && d.range.start <= at && at < d.range.end;
    let description = describeQuery(text, at, settings());
    if (!covers(description)) description = describeQuery(text, at + 1, settings());
    if (description === undefined || !covers(description)) return null;
    const found = description;
    return {
      pos: found.range.start,
      end: found.range.end,
      above: true,
      create: () => {
        const dom = document.createElement('div');
        dom.className = 'cm-query-hover';
        const head = document.createElement('div');
        head.className = 'cm-query-hover-type';
        head.textContent = found.type === undefined || found.type === '' ? found.label : `${found.label}: ${found.type}`;
        dom.append(head);
        if (found.signature !== undefined) {
          const signature = document.createElement('div');
          signature.className = 'cm-query-hover-signature';
          signature.textContent = found.signature;
          dom.append(signature);
        }
        if (found.description !== undefined) {
          const description = document.createElement('div');
          description.className = 'cm-query-hover-description';
          description.textContent = found.description;
          dom.append(description);
        }
        return { dom };
      },
    };
  });
}

/** The signatures of the call whose parentheses hold the cursor, its current argument in bold. */
function signatureTooltip(doc: Text, head: number): Tooltip | null {
  const help = signatureHelp(doc.toString(), head);
  const signature = help?.signatures[help.activeSignature];
  if (help === undefined || signature === undefined) return null;
  return {
    pos: head,
    above: true,
    strictSide: false,
    arrow: false,
    create: () => {
      const dom = document.createElement('div');
      dom.className = 'cm-query-signature';
      // The parameters' labels, found in order in the signature's label: the active one marked.
      let at = signature.label.indexOf('(') + 1;
      signature.parameters.forEach((parameter, index) => {
        const found = signature.label.indexOf(parameter.label, at);
        if (found < 0) return;
        dom.append(signature.label.slice(at, found));
        const part = document.createElement(index === help.activeParameter ? 'strong' : 'span');
        part.textContent = parameter.label;
        dom.append(part);
        at = found + parameter.label.length;
      });
      dom.prepend(signature.label.slice(0, signature.label.indexOf('(') + 1));
      dom.append(signature.label.slice(at));
      if (help.signatures.length > 1) {
        const more = document.createElement('small');
        more.textContent = ` (${help.activeSignature + 1} of ${help.signatures.length})`;
        dom.append(more);
      }
      return { dom };
    },
  };
}

const signatureField = StateField.define<Tooltip | null>({
  create: (state) => signatureTooltip(state.doc, state.selection.main.head),
  update: (tooltip, tr) => (tr.docChanged || tr.selection !== undefined ? signatureTooltip(tr.state.doc, tr.state.selection.main.head) : tooltip),
  provide: (field) => showTooltip.from(field),
});

/** A query string is one line: line breaks typed or pasted are dropped. */
const oneLine = EditorState.transactionFilter.of((tr) => {
  if (!tr.docChanged || tr.newDoc.lines === 1) return tr;
  const changes: { from: number; to: number; insert: string }[] = [];
  tr.changes.iterChanges((from, to, _fromB, _toB, inserted) => changes.push({ from, to, insert: inserted.sliceString(0, inserted.length, '') }));
  const set = tr.startState.changes(changes);
  return { changes: set, selection: tr.startState.selection.map(set, 1), scrollIntoView: true };
});

const theme = EditorView.theme({
  '&': { border: '1px solid #b8c0cc', borderRadius: '4px', background: '#fff', minHeight: '84px' },
  '&.cm-focused': { outline: '2px solid #7aa7e8', outlineOffset: '-1px' },
  '.cm-scroller': { font: '14px/1.5 ui-monospace, monospace', overflow: 'auto' },
  '.cm-content': { padding: '8px 4px' },
  '.cm-tooltip': { font: '13px/1.4 ui-monospace, monospace' },
  '.cm-query-hover, .cm-query-signature': { padding: '4px 8px', maxWidth: '560px' },
  '.cm-query-hover-type': { fontWeight: '600' },
  '.cm-query-hover-signature': { color: '#3a4a6b' },
  '.cm-query-hover-description': { font: '13px/1.4 system-ui, sans-serif', color: '#5a6372', marginTop: '2px' },
  '.cm-query-signature strong': { color: '#0b57d0' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { background: '#dbe7fb', color: '#1d2330' },
  '.cm-completionDetail': { color: '#5a6372', marginLeft: '1em' },
});

export function createQueryEditor(options: QueryEditorOptions): QueryEditor {
  const extensions: Extension[] = [
    oneLine,
    history(),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': 'query string', spellcheck: 'false', autocorrect: 'off', autocapitalize: 'off' }),
    autocompletion({
      override: [completionSource(options.settings)],
      activateOnTyping: true,
      activateOnCompletion: reopensCompletion,
      maxRenderedOptions: 200,
    }),
    linter(
      (view): EditorDiagnostic[] => {
        const length = view.state.doc.length;
        const text = view.state.doc.toString();
        const diagnostics = options.check(text);
        // The language service's quick fixes, as the diagnostics' actions (a button in the lint tooltip).
        const fixes = diagnostics.length === 0 ? [] : quickFixes(text, options.settings());
        return diagnostics.map((d) => {
          const from = Math.min(d.range.start, length);
          const actions = fixes
            .filter((fix) => fix.diagnostic.range.start === d.range.start && fix.diagnostic.code === d.code)
            .map((fix) => ({
              name: fix.title,
              apply(target: EditorView): void {
                target.dispatch({ changes: fix.edits.map((edit) => ({ from: edit.range.start, to: edit.range.end, insert: edit.newText })) });
              },
            }));
          return {
            from,
            to: Math.min(Math.max(d.range.end, from), length),
            severity: d.severity,
            message: d.message,
            source: d.option === undefined ? d.code : `${d.code} (${d.option})`,
            // The code, for the page's style and its tests.
            markClass: `diagnostic-${d.code}`,
            ...(actions.length === 0 ? {} : { actions }),
          };
        });
      },
      { delay: 120, needsRefresh: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(recheck))) },
    ),
    hoverSource(options.settings),
    signatureField,
    // Tab takes the selected completion too; with no list open it moves the focus on as usual.
    Prec.high(keymap.of([{ key: 'Tab', run: acceptCompletion }])),
    keymap.of([...standardKeymap, ...historyKeymap, ...lintKeymap]),
    theme,
  ];
  const view = new EditorView({ parent: options.parent, state: EditorState.create({ doc: options.doc, extensions }) });
  return {
    view,
    setQuery(query: string): void {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: query }, selection: { anchor: query.length }, effects: recheck.of(null) });
    },
    refresh(): void {
      view.dispatch({ effects: recheck.of(null) });
    },
  };
}
