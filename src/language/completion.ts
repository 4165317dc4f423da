/** What the language service's completion gives: one item, its kind, and the settings it takes. */
import type { BindSettings } from '../semantic/settings.js';
import type { TextRange } from './cursor.js';

/** What a completion item is. */
export type CompletionKind =
  | 'option'
  | 'property'
  | 'navigation'
  | 'function'
  | 'keyword'
  | 'operator'
  | 'enumMember'
  | 'literal'
  | 'variable'
  | 'computed'
  | 'transformation'
  | 'entitySet';

/** One completion item: what to show, and the text that replaces `range` of the query. */
export interface Completion {
  readonly label: string;
  readonly kind: CompletionKind;
  /** The type, or a signature: `Edm.String`, `contains(Edm.String, Edm.String): Edm.Boolean`. */
  readonly detail?: string;
  /** The model's description of a property (`Core.Description`), when it has one. */
  readonly documentation?: string;
  readonly insertText: string;
  /** The range of the query text the item replaces (the word at the cursor; empty where none is). */
  readonly range: TextRange;
}

/** Settings of `completeQuery`: those of `bindQuery` (the model, the entity set, limits and capabilities). */
export type CompleteSettings = BindSettings;
