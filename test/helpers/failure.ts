import { ODataError } from '../../src/index.js';

/** Runs `run` and returns the ODataError it throws; fails on success or on any other error. */
export function failure(run: () => unknown): ODataError {
  try {
    run();
  } catch (error) {
    if (error instanceof ODataError) return error;
    throw new Error(`expected an ODataError, got ${String(error)}`);
  }
  throw new Error('expected an ODataError, but the call succeeded');
}
