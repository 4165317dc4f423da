/**
 * Chevrotain's LL(k) lookahead, built on first use. Chevrotain computes a lookahead function for
 * every alternation, option and repetition of the grammar while the parser is built; most of them
 * are never needed by a process's first queries (a `$filter` never reaches the `$expand` rules).
 * This strategy hands Chevrotain a stand-in for each one that builds the real function when first
 * called, then calls it directly. The functions are the ones Chevrotain would have built.
 */
import { LLkLookaheadStrategy, type ILookaheadStrategy } from 'chevrotain';

type AlternationOptions = Parameters<ILookaheadStrategy['buildLookaheadForAlternation']>[0];
type OptionalOptions = Parameters<ILookaheadStrategy['buildLookaheadForOptional']>[0];

/** An `LLkLookaheadStrategy` whose lookahead functions are built when first called. */
export class LazyLookaheadStrategy extends LLkLookaheadStrategy {
  override buildLookaheadForAlternation(options: AlternationOptions): ReturnType<ILookaheadStrategy['buildLookaheadForAlternation']> {
    const build = () => super.buildLookaheadForAlternation(options);
    let built: ReturnType<ILookaheadStrategy['buildLookaheadForAlternation']> | undefined;
    // (`this` is the parser: a lookahead function reads its tokens.)
    return function (this: unknown, alternatives) {
      built ??= build();
      return built.call(this, alternatives);
    };
  }

  override buildLookaheadForOptional(options: OptionalOptions): ReturnType<ILookaheadStrategy['buildLookaheadForOptional']> {
    const build = () => super.buildLookaheadForOptional(options);
    let built: ReturnType<ILookaheadStrategy['buildLookaheadForOptional']> | undefined;
    return function (this: unknown) {
      built ??= build();
      return built.call(this);
    };
  }
}
