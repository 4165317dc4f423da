/**
 * Shape plans (issue 15): the plan of a query shape, learned on the first text of the shape and
 * filled with each later text's literals.
 *
 * A shape gets a plan only when all of these hold, else its texts are cached by exact text:
 * 1. every slot literal is an operand next to a non-literal (`Price gt 2.5`, `contains(Name,'a')`,
 *    `Id in (1,2)`): a literal among literals only (`1 add 2`, `tolower('A')`) may be folded;
 * 2. two *probes*, texts of the same shape with other literals of the same classes, bind (and
 *    later compile) without error;
 * 3. the plan of the text and that of the first probe differ only where a literal's value goes
 *    (see `template.ts`), spans moved by the literals' lengths;
 * 4. the template filled with the second probe's literals is exactly the second probe's plan.
 * The same holds for each compiled form (`toSql` with its options, `toMongo`), learned on first use.
 */
import type { BoundExpression, BoundQuery, BoundQueryOptions } from '../semantic/bound-ast.js';
import { expressionChildren, forEachExpression } from '../semantic/walk/index.js';
import type { BindSettings } from '../semantic/settings.js';
import { bindQuery } from '../semantic/bind-query.js';
import { probeImage, shapeOf, withImages, type QueryShape, type Slot } from './shape.js';
import { fillingOf, instantiate, instantiateLazily, learnTemplate, samePlan, type Filling, type Template } from './template.js';

/** A text of the shape that the plan was checked against. */
interface Probe {
  readonly bound: BoundQuery;
  readonly values: readonly unknown[];
  /** Its literals' lengths less those of the learned text. */
  readonly deltas: readonly number[];
}

/** The plan of a shape: the bound query's template and the probes its compiled forms are learned from. */
export interface ShapePlan {
  /** The shape's cache key. */
  readonly key: string;
  /** The text the plan was learned on, and its bound query (served as it is for that text). */
  readonly text: string;
  readonly bound: BoundQuery;
  readonly template: Template;
  /** The learned text's literals: their values and token lengths. */
  readonly values: readonly unknown[];
  readonly lengths: readonly number[];
  readonly images: readonly string[];
  readonly probes: readonly [Probe, Probe];
}

/** A bound query of a text of a shape with a plan, with that text's literals (the filling of its lazy parts too). */
export interface ShapedBound extends Filling {
  /** Marks a shaped bound query's filling. */
  readonly shaped: true;
  readonly plan: ShapePlan;
  /** The text and the key of the settings it was bound with (the key of its exact text, when needed; the cache's own). */
  readonly query: string;
  readonly settingsKey: string;
}

/** A compiled form's template, or `false` when the form does not follow the literals. */
export type DerivedPlan = { readonly template: Template } | false;

/** The option whose text the spans under a key of a bound query point into. */
const OPTION_OF: Readonly<Record<string, string>> = { filter: 'filter', orderBy: 'orderby', expand: 'expand', search: 'search', select: 'select' };

/** Rule 1: every slot is found as a literal operand of a binary, `in` or call with a non-literal operand. */
function slotsAreOperands(bound: BoundQuery, slots: readonly Slot[]): boolean {
  const found = new Set<Slot>();
  let ok = true;
  const slotOf = (node: BoundExpression, option: string): Slot | undefined =>
    node.kind === 'literal' ? slots.find((slot) => slot.option === option && slot.offset === node.span.start) : undefined;
  const visit = (root: BoundExpression, option: string): void => {
    if (slotOf(root, option) !== undefined) ok = false;
    forEachExpression(root, (node) => {
      const children = expressionChildren(node);
      const beside =
        (node.kind === 'binary' || node.kind === 'in' || node.kind === 'call') &&
        (node.kind === 'in' ? node.left.kind !== 'literal' : children.some((child) => child.kind !== 'literal'));
      for (const child of children) {
        const slot = slotOf(child, option);
        if (slot !== undefined) {
          found.add(slot);
          if (!beside) ok = false;
        }
      }
    });
  };
  const options = (level: BoundQueryOptions, nested: boolean): void => {
    if (level.filter !== undefined) visit(level.filter, nested ? 'expand' : 'filter');
    for (const item of level.orderBy ?? []) visit(item.expression, nested ? 'expand' : 'orderby');
    for (const item of level.expand) options(item.options, true);
  };
  options(bound, false);
  return ok && found.size === slots.length;
}

/** A probe: the shape with other literals (distinct from the text's and from each other), bound. */
function probe(shape: QueryShape, settings: BindSettings, variant: number): Probe | undefined {
  const images: string[] = [];
  for (const [index, slot] of shape.slots.entries()) {
    const image = probeImage(slot, variant * 17 + index * 5);
    if (image === undefined) return undefined;
    images.push(image);
  }
  const text = withImages(shape, images);
  const probeShape = shapeOf(text, settings.parse?.plusAsSpace ?? false);
  if (probeShape?.key !== shape.key) return undefined;
  const values = probeShape.slots.map((slot) => slot.value);
  const seen = new Set(values.map((value) => String(value)));
  if (seen.size !== values.length || values.some((value, i) => String(value) === String(shape.slots[i]?.value))) return undefined;
  try {
    return {
      bound: Object.freeze(bindQuery(text, settings)),
      values,
      deltas: probeShape.slots.map((slot, i) => slot.image.length - (shape.slots[i] as Slot).image.length),
    };
  } catch {
    return undefined;
  }
}

/** The plan of the shape of a text bound as `bound`, or `undefined` when the shape has none (see the module). */
export function learnShape(key: string, text: string, shape: QueryShape, bound: BoundQuery, settings: BindSettings): ShapePlan | undefined {
  try {
    return learn(key, text, shape, bound, settings);
  } catch {
    // (Nothing of learning may fail a request: the shape then has no plan.)
    return undefined;
  }
}

function learn(key: string, text: string, shape: QueryShape, bound: BoundQuery, settings: BindSettings): ShapePlan | undefined {
  if (!slotsAreOperands(bound, shape.slots)) return undefined;
  const first = probe(shape, settings, 1);
  const second = first === undefined ? undefined : probe(shape, settings, 2);
  if (first === undefined || second === undefined) return undefined;
  const values = shape.slots.map((slot) => slot.value);
  const template = learnTemplate(bound, first.bound, values, first.values, {
    optionOf: (rootKey) => OPTION_OF[rootKey],
    slots: shape.slots.map((slot) => ({ option: slot.option, offset: slot.offset, length: slot.image.length })),
    probeLengths: first.deltas.map((delta, i) => delta + (shape.slots[i] as Slot).image.length),
  });
  if (template === undefined || !samePlan(instantiate(template, second.values, second.deltas), second.bound)) return undefined;
  return {
    key,
    text,
    bound,
    template,
    values,
    lengths: shape.slots.map((slot) => slot.image.length),
    images: shape.slots.map((slot) => slot.image),
    probes: [first, second],
  };
}

/** Whether the text of `shape` has the literals `plan` was learned on (so it is that text, but perhaps for its encoding). */
export function sameLiterals(plan: ShapePlan, shape: QueryShape): boolean {
  for (let i = 0; i < shape.slots.length; i++) if ((shape.slots[i] as Slot).image !== plan.images[i]) return false;
  return true;
}

/**
 * The bound query of a text (`query`, of shape `shape`, with settings of key `settingsKey`) of
 * `plan`'s shape.
 * Its large parts (a `$filter`'s tree) are built when first read: compiled forms served from the
 * cache do not read them.
 */
export function instantiateBound(plan: ShapePlan, shape: QueryShape, query: string, settingsKey: string): BoundQuery {
  const values: unknown[] = [];
  const deltas: number[] = [];
  for (let i = 0; i < shape.slots.length; i++) {
    const slot = shape.slots[i] as Slot;
    values.push(slot.value);
    deltas.push(slot.image.length - (plan.lengths[i] as number));
  }
  const instance: ShapedBound = { shaped: true, plan, query, settingsKey, values, deltas };
  return instantiateLazily(plan.template, instance) as BoundQuery;
}

/** The plan and literals of a bound query that {@link instantiateBound} gave. */
export function shapedOf(bound: BoundQuery): ShapedBound | undefined {
  const filling = fillingOf(bound);
  return filling !== undefined && (filling as Partial<ShapedBound>).shaped === true ? (filling as ShapedBound) : undefined;
}

/** A compiled form of a shaped bound query from its form's template. */
export function fillDerived<T>(known: { readonly template: Template }, instance: ShapedBound): T {
  return instantiate(known.template, instance.values, instance.deltas) as T;
}

/** Where the cache keeps a compiled form's template (or `false`) for a shape plan. */
export interface DerivedSlot {
  get(): DerivedPlan | undefined;
  set(plan: DerivedPlan): void;
}

/**
 * A compiled form of a shaped bound query: from the form's template in `slot`, or compiled and
 * its template learned (from the shape's probes). `undefined` when the form does not follow the
 * literals (the caller caches it by exact text).
 */
export function deriveShaped<T>(bound: BoundQuery, instance: ShapedBound, slot: DerivedSlot, compute: (bound: BoundQuery) => T): { value: T } | undefined {
  const known = slot.get();
  if (known === false) return undefined;
  // (All of it: the caller reads a compiled form whole.)
  if (known !== undefined) return { value: fillDerived<T>(known, instance) };
  const value = compute(bound);
  const [first, second] = instance.plan.probes;
  let template: Template | undefined;
  try {
    const firstValue = compute(first.bound);
    template = learnTemplate(value, firstValue, instance.values, first.values);
    const deltas = second.deltas.map((delta, i) => delta - (instance.deltas[i] as number));
    if (template !== undefined && !samePlan(instantiate(template, second.values, deltas), compute(second.bound))) template = undefined;
  } catch {
    template = undefined;
  }
  slot.set(template === undefined ? false : { template });
  return { value };
}
