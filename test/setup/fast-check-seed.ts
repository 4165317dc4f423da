/**
 * Property tests draw random cases. Under CI (CI=true) they draw from one fixed seed, so that a
 * submission's CI run cannot fail on a case no earlier run drew; locally each run draws new cases
 * (and a failure prints its seed to replay). FC_SEED sets the seed either way.
 */
import fc from 'fast-check';

const fixed = process.env.FC_SEED ?? (process.env.CI === 'true' ? '20261125' : undefined);
if (fixed !== undefined) fc.configureGlobal({ seed: Number(fixed) });
