/** The Asset Management Service over HTTP, on embedded PostgreSQL (PGlite) in a temp directory. */
import { serviceSuite } from './suite.js';

serviceSuite('PGlite');
