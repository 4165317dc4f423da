/**
 * The one error a backend raises for a bound query it cannot run: `unsupported_feature`, naming
 * the backend and the construct, with the option and position of the node when known.
 */
import { ODataError } from '../errors/odata-error.js';

/** Where in the request the construct is: the option, and a node of it when one has a position. */
export interface UnsupportedAt {
  readonly node?: { readonly span: { readonly start: number } };
  readonly option: string;
}

/** `The {backend} backend does not support {what}` as an `unsupported_feature` ODataError. */
export function unsupportedFeature(backend: string, what: string, at?: UnsupportedAt): ODataError {
  const reason = `The ${backend} backend does not support ${what}`;
  if (at === undefined) return new ODataError({ code: 'unsupported_feature', reason, appendLocation: false });
  if (at.node === undefined) return new ODataError({ code: 'unsupported_feature', reason, option: at.option, appendLocation: false });
  return new ODataError({ code: 'unsupported_feature', reason, option: at.option, position: at.node.span.start });
}

/** What a backend says of a navigation property whose target entity set the model does not name. */
export function unknownTarget(navigation: { readonly name: string }): string {
  return `the navigation property '${navigation.name}', whose entity set the model does not say (bind it with a navigation property binding)`;
}

/**
 * Refuses `$apply` (at any `$expand` level) for a backend that does not run it yet: an
 * `unsupported_feature` error at its first transformation.
 */
export function refuseApply(
  backend: string,
  options: {
    readonly apply?: { readonly transformations: readonly { readonly span: { readonly start: number } }[] };
    readonly expand: readonly { readonly options: unknown }[];
  },
  option = '$apply',
): void {
  const first = options.apply?.transformations[0];
  if (options.apply !== undefined) throw unsupportedFeature(backend, '$apply', first === undefined ? { option } : { node: first, option });
  for (const item of options.expand) refuseApply(backend, item.options as Parameters<typeof refuseApply>[1], '$expand');
}
